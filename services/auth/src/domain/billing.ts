import { badInput, conflict, forbidden, notFound, type Logger } from '@coffer/common';
import type { AuthEvents } from '../events.js';
import type { BillingStore, PlanRecord, SubscriptionRecord, UserStore } from '../store/types.js';
import type { Plans } from './plans.js';

export const BILLING_NOT_CONFIGURED_MESSAGE =
  'Billing is not set up on this server, so paid plans cannot be bought here. ' +
  'An administrator can change your plan in the admin console.';

export const EVENT_BUSY_MESSAGE = 'Another delivery of this event is being handled; send it again later';
/** A claim on an event this old was left by a handler that died: another delivery takes it over. */
const EVENT_CLAIM_STALE_MS = 5 * 60_000;

/** A verified provider event, reduced to what the state machine reads. */
export interface ProviderEvent {
  id: string;
  type: string;
  object: Record<string, unknown>;
}

/** The payment provider's calls billing makes (Stripe in production; unit tests hand in a fake). */
export interface BillingProvider {
  /** A hosted payment page for a subscription to `priceId`; the card never reaches Coffer. */
  checkout(opts: {
    userId: string;
    planId: string;
    email: string;
    priceId: string;
    customerId?: string;
    successUrl: string;
    cancelUrl: string;
  }): Promise<{ url: string }>;
  /** Ends the subscription when the paid period ends (the user keeps what they paid for). */
  cancelAtPeriodEnd(subscriptionId: string): Promise<void>;
  /** Ends the subscription now, without further charges (a deleted account); done if it already ended. */
  cancelNow(subscriptionId: string): Promise<void>;
  /**
   * Moves the subscription to another price. `chargeNow`: an upgrade is invoiced at once (the plan
   * changes when that invoice is paid); a downgrade applies from the next renewal.
   */
  changePrice(subscriptionId: string, priceId: string, chargeNow: boolean): Promise<void>;
  /** Verifies the signature over the raw body; throws when it does not verify. */
  verify(payload: Buffer, signature: string): ProviderEvent;
}

export interface PlanChange {
  plan: PlanRecord;
  changed: boolean;
  checkoutUrl?: string;
  effectiveAt?: Date;
  nextPlan?: PlanRecord;
}

/** Statuses in which the user holds a paid subscription (past_due: the provider is still retrying). */
const LIVE = new Set(['active', 'trialing', 'past_due']);

// --- reading provider objects: Stripe moved some fields between API versions, so both are read.
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
const idOf = (v: unknown): string | undefined => str(v) ?? str(obj(v).id);
const epoch = (v: unknown): Date | undefined => (typeof v === 'number' ? new Date(v * 1000) : undefined);
const firstLine = (invoice: Obj): Obj => obj((obj(invoice.lines).data as unknown[] | undefined)?.[0]);
const firstItem = (sub: Obj): Obj => obj((obj(sub.items).data as unknown[] | undefined)?.[0]);

export const invoiceSubscription = (invoice: Obj) =>
  idOf(invoice.subscription) ??
  idOf(obj(obj(invoice.parent).subscription_details).subscription) ??
  idOf(obj(obj(firstLine(invoice).parent).subscription_item_details).subscription);
const invoiceMetadata = (invoice: Obj) =>
  obj(obj(obj(invoice.parent).subscription_details).metadata ?? obj(invoice.subscription_details).metadata);
const invoicePrice = (invoice: Obj) => {
  const line = firstLine(invoice);
  return idOf(line.price) ?? idOf(obj(obj(line.pricing).price_details).price);
};
const invoicePeriodEnd = (invoice: Obj) => epoch(obj(firstLine(invoice).period).end);
const subscriptionPeriodEnd = (sub: Obj) =>
  epoch(sub.current_period_end) ?? epoch(firstItem(sub).current_period_end);

/**
 * Paid plans through a payment provider. The plan changes only on a verified provider event that
 * says the money arrived (checkout.session.completed, invoice.paid); downgrades and cancellations
 * wait for the end of the paid period; a subscription the provider ends after failed renewals
 * moves the user back to Free. Each event id is recorded once handled, so a redelivery is a no-op.
 * Without a provider (`provider: null`) only free plans can be chosen, and the answer says why.
 */
export function billing(deps: {
  provider: BillingProvider | null;
  /** Plan key → the provider's price id (STRIPE_PRICE_<KEY>). */
  prices: Record<string, string>;
  publicUrl: string;
  store: BillingStore;
  plans: Plans;
  users: Pick<UserStore, 'get'>;
  events: AuthEvents;
  log?: Pick<Logger, 'info' | 'warn'>;
  now?: () => Date;
}) {
  const { provider, store, plans } = deps;
  const now = deps.now ?? (() => new Date());

  const priceOf = (plan: PlanRecord) => deps.prices[plan.key];
  async function planOfPrice(priceId: string | undefined): Promise<PlanRecord | undefined> {
    if (!priceId) return undefined;
    const key = Object.entries(deps.prices).find(([, id]) => id === priceId)?.[0];
    return key ? (await plans.list()).find((p) => p.key === key) : undefined;
  }
  async function liveSubscription(userId: string): Promise<SubscriptionRecord | null> {
    const sub = await store.subscriptionOf(userId);
    return sub && LIVE.has(sub.status) ? sub : null;
  }

  async function requestChange(userId: string, planId: string): Promise<PlanChange> {
    const [target, current] = await Promise.all([plans.byId(planId), plans.ofUser(userId)]);
    const sub = provider ? await liveSubscription(userId) : null;
    if (target.id === current.id && !sub?.cancelAtPeriodEnd && !sub?.pendingPlanId) {
      return { plan: current, changed: false };
    }
    if (!provider || !sub) {
      if (target.price === 0)
        return { plan: await plans.assign(userId, target), changed: target.id !== current.id };
      if (!provider) throw forbidden(BILLING_NOT_CONFIGURED_MESSAGE, 'BILLING_NOT_CONFIGURED');
      const priceId = priceOf(target);
      if (!priceId)
        throw forbidden(`The ${target.name} plan cannot be bought on this server`, 'BILLING_NOT_CONFIGURED');
      const user = await deps.users.get(userId);
      if (!user) throw notFound('User not found');
      const previous = await store.subscriptionOf(userId);
      const { url } = await provider.checkout({
        userId,
        planId: target.id,
        email: user.email,
        priceId,
        ...(previous ? { customerId: previous.customerId } : {}),
        successUrl: `${deps.publicUrl}/profile?tab=billing&checkout=success`,
        cancelUrl: `${deps.publicUrl}/profile?tab=billing&checkout=cancelled`,
      });
      return { plan: current, changed: false, checkoutUrl: url, nextPlan: target };
    }

    // A live subscription: the paid period is honoured whatever the user picks.
    const effectiveAt = sub.currentPeriodEnd;
    if (target.price === 0) {
      await provider.cancelAtPeriodEnd(sub.subscriptionId);
      await store.saveSubscription({ ...sub, cancelAtPeriodEnd: true, pendingPlanId: target.id });
      return { plan: current, changed: false, nextPlan: target, ...(effectiveAt ? { effectiveAt } : {}) };
    }
    const priceId = priceOf(target);
    if (!priceId)
      throw forbidden(`The ${target.name} plan cannot be bought on this server`, 'BILLING_NOT_CONFIGURED');
    const upgrade = target.price > current.price;
    await provider.changePrice(sub.subscriptionId, priceId, upgrade);
    const { pendingPlanId: _dropped, ...rest } = sub;
    await store.saveSubscription({
      ...rest,
      cancelAtPeriodEnd: false,
      ...(upgrade || target.id === current.id ? {} : { pendingPlanId: target.id }),
    });
    if (target.id === current.id) return { plan: current, changed: false };
    // An upgrade changes the plan when its invoice is paid (invoice.paid), usually seconds later.
    return {
      plan: current,
      changed: false,
      nextPlan: target,
      ...(!upgrade && effectiveAt ? { effectiveAt } : {}),
    };
  }

  /**
   * Moves the user to `plan` and records the active subscription that pays for it; a scheduled
   * cancellation the stored record (`known`) has stays, a pending cheaper plan does not.
   */
  async function paid(
    plan: PlanRecord,
    ref: Pick<SubscriptionRecord, 'userId' | 'customerId' | 'subscriptionId'>,
    known: SubscriptionRecord | null | undefined,
    periodEnd = known?.currentPeriodEnd,
  ): Promise<void> {
    await store.saveSubscription({
      ...ref,
      planId: plan.id,
      status: 'active',
      cancelAtPeriodEnd: known?.cancelAtPeriodEnd ?? false,
      ...(periodEnd ? { currentPeriodEnd: periodEnd } : {}),
    });
    await plans.assign(ref.userId, plan);
  }

  async function apply(event: ProviderEvent): Promise<void> {
    const o = event.object;
    switch (event.type) {
      case 'checkout.session.completed': {
        if (o.mode !== 'subscription' || o.payment_status === 'unpaid') return;
        const metadata = obj(o.metadata);
        const userId = str(o.client_reference_id) ?? str(metadata.userId);
        const planId = str(metadata.planId);
        const subscriptionId = idOf(o.subscription);
        const customerId = idOf(o.customer);
        if (!userId || !planId || !subscriptionId || !customerId) return;
        if (!(await deps.users.get(userId))) return; // the account was deleted meanwhile
        const plan = await plans.byId(planId);
        const existing = await store.bySubscriptionId(subscriptionId);
        await paid(plan, { userId, customerId, subscriptionId }, existing);
        return;
      }
      case 'invoice.paid': {
        const subscriptionId = invoiceSubscription(o);
        if (!subscriptionId) return;
        const sub = await store.bySubscriptionId(subscriptionId);
        const userId = sub?.userId ?? str(invoiceMetadata(o).userId);
        const customerId = sub?.customerId ?? idOf(o.customer);
        const plan = (await planOfPrice(invoicePrice(o))) ?? (sub ? await plans.byId(sub.planId) : undefined);
        if (!userId || !customerId || !plan || !(await deps.users.get(userId))) return;
        await paid(plan, { userId, customerId, subscriptionId }, sub, invoicePeriodEnd(o));
        return;
      }
      case 'invoice.payment_failed': {
        const subscriptionId = invoiceSubscription(o);
        const sub = subscriptionId ? await store.bySubscriptionId(subscriptionId) : null;
        // The provider retries; the plan stays until it gives up (customer.subscription.deleted).
        if (sub) await store.saveSubscription({ ...sub, status: 'past_due' });
        return;
      }
      case 'customer.subscription.updated': {
        const sub = await store.bySubscriptionId(String(o.id));
        if (!sub) return;
        const periodEnd = subscriptionPeriodEnd(o) ?? sub.currentPeriodEnd;
        const cancelAtPeriodEnd = o.cancel_at_period_end === true;
        const { pendingPlanId, ...rest } = sub;
        await store.saveSubscription({
          ...rest,
          status: str(o.status) ?? sub.status,
          cancelAtPeriodEnd,
          ...(periodEnd ? { currentPeriodEnd: periodEnd } : {}),
          // A cancellation undone at the provider drops the pending move to Free.
          ...(pendingPlanId && (cancelAtPeriodEnd || (await plans.byId(pendingPlanId)).price > 0)
            ? { pendingPlanId }
            : {}),
        });
        return;
      }
      case 'customer.subscription.deleted': {
        const sub = await store.bySubscriptionId(String(o.id));
        if (!sub) return;
        await store.removeSubscription(sub.userId, sub.subscriptionId);
        if (!(await deps.users.get(sub.userId))) return;
        const [previous, free] = await Promise.all([plans.ofUser(sub.userId), plans.freePlan()]);
        await plans.assign(sub.userId, free);
        const reason = str(obj(o.cancellation_details).reason);
        const lapsed = reason === 'payment_failed' || (!sub.cancelAtPeriodEnd && sub.status !== 'active');
        if (lapsed && previous.id !== free.id) {
          await deps.events.publish('auth.billing.plan_lapsed', {
            userId: sub.userId,
            previousPlanName: previous.name,
            planName: free.name,
          });
        }
        return;
      }
      default:
        return;
    }
  }

  /** Cancels at the provider, then forgets the record; false when the provider failed. */
  async function cancelAtProvider(sub: SubscriptionRecord): Promise<boolean> {
    try {
      await provider!.cancelNow(sub.subscriptionId);
    } catch (err) {
      deps.log?.warn(
        { userId: sub.userId, err: err instanceof Error ? err.message : String(err) },
        "a deleted account's subscription could not be cancelled yet; the sweep retries it",
      );
      return false;
    }
    await store.removeSubscription(sub.userId, sub.subscriptionId);
    deps.log?.info({ userId: sub.userId }, "a deleted account's subscription was cancelled");
    return true;
  }

  return {
    enabled: provider !== null,

    /**
     * The account is gone: its subscription must not renew. Cancelled at once (nothing left to
     * use until the period ends); when the provider cannot be reached the deletion still stands and
     * the record stays, for `retryCancellations` to finish.
     */
    async cancelForDeletedUser(userId: string): Promise<void> {
      if (!provider) return;
      const sub = await store.subscriptionOf(userId);
      if (sub) await cancelAtProvider(sub);
    },

    /** The sweep: cancels every subscription whose account no longer exists (run periodically). */
    async retryCancellations(): Promise<void> {
      if (!provider) return;
      for (const sub of await store.allSubscriptions()) {
        if (!(await deps.users.get(sub.userId))) await cancelAtProvider(sub);
      }
    },

    requestChange,

    async state(userId: string): Promise<{ enabled: boolean; subscription: SubscriptionRecord | null }> {
      return { enabled: provider !== null, subscription: provider ? await liveSubscription(userId) : null };
    },

    /** One provider webhook: verified, applied once. Answers whether it had been handled before. */
    async webhook(payload: Buffer, signature: string): Promise<{ duplicate: boolean }> {
      if (!provider) throw notFound('Billing is not set up on this server');
      if (!signature) throw badInput('Missing Stripe-Signature header');
      const event = provider.verify(payload, signature);
      // The event id is claimed before anything is done (a unique key), so of several deliveries
      // of one event at once exactly one acts; one arriving while it acts is refused with a
      // conflict, which makes the provider send it again later (a 2xx would lose it if this fails).
      const at = now();
      const claim = await store.claimEvent(
        event.id,
        event.type,
        at,
        new Date(at.getTime() - EVENT_CLAIM_STALE_MS),
      );
      if (claim === 'done') return { duplicate: true };
      if (claim === 'busy') throw conflict(EVENT_BUSY_MESSAGE);
      try {
        await apply(event);
      } catch (err) {
        // Not handled: the provider's next delivery must be able to act.
        await store.releaseEvent(event.id, at).catch(() => undefined);
        throw err;
      }
      await store.finishEvent(event.id);
      return { duplicate: false };
    },
  };
}
export type Billing = ReturnType<typeof billing>;
