import Stripe from 'stripe';
import { createLogger } from '@coffer/common';
import { buildAuth } from '../build';
import { fakeAuthStores } from '../store/fake';
import { TEST_SETTINGS } from '../test-world';
import { BILLING_NOT_CONFIGURED_MESSAGE, EVENT_BUSY_MESSAGE, type BillingProvider } from './billing';
import { stripeProvider } from './billing-stripe';

const WEBHOOK_SECRET = 'whsec_unit_test_secret';
const PRICES = { starter: 'price_starter', pro: 'price_pro', business: 'price_business' };
const PERIOD_END = 1_767_225_600; // 2026-01-01T00:00:00Z
const stripe = new Stripe('sk_test_unit');

/**
 * The provider's outgoing calls are recorded (they need Stripe's API); webhook verification is
 * Stripe's own code over payloads signed with its test helper.
 */
function recordingProvider() {
  const verifier = stripeProvider({ secretKey: 'sk_test_unit', webhookSecret: WEBHOOK_SECRET });
  const calls: Array<[string, ...unknown[]]> = [];
  const failing = { cancelNow: false };
  const provider: BillingProvider = {
    async checkout(o) {
      calls.push(['checkout', o.priceId, o.planId]);
      return { url: 'https://checkout.stripe.com/c/pay/cs_test_1' };
    },
    async cancelAtPeriodEnd(id) {
      calls.push(['cancelAtPeriodEnd', id]);
    },
    async changePrice(id, price, now) {
      calls.push(['changePrice', id, price, now]);
    },
    async cancelNow(id) {
      calls.push(['cancelNow', id]);
      if (failing.cancelNow) throw new Error('stripe is down');
    },
    verify: (payload, signature) => verifier.verify(payload, signature),
  };
  return { provider, calls, failing };
}

async function world(withBilling = true) {
  const stores = fakeAuthStores();
  const published: Array<{ subject: string; data: unknown }> = [];
  const events = {
    publish: async (subject: string, data: unknown) => void published.push({ subject, data }),
  };
  const { provider, calls, failing } = recordingProvider();
  const auth = buildAuth({
    stores,
    events: events as never,
    mail: { passwordReset: async () => {}, accountEmailChanged: async () => {} },
    config: TEST_SETTINGS,
    log: createLogger('billing-test', 'silent'),
    ...(withBilling ? { billing: { provider, prices: PRICES } } : {}),
  });
  await auth.plans.seed();
  const { user } = await auth.accounts.register({
    name: 'Ada',
    email: 'ada@example.com',
    password: 'secret-1',
  });
  const plan = async (key: string) => (await stores.plans.byKey(key))!;
  const planOfUser = async () => (await auth.plans.ofUser(user.id)).name;
  let seq = 0;
  /** Delivers a signed event; `id` repeats a delivery. */
  const deliver = (type: string, object: Record<string, unknown>, id = `evt_${++seq}`) => {
    const payload = JSON.stringify({ id, object: 'event', type, data: { object } });
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    return auth.billing.webhook(Buffer.from(payload), header);
  };
  const planChanges = () =>
    published.filter((p) => p.subject === 'auth.user.plan_changed').map((p) => p.data);
  return { auth, stores, published, calls, failing, user, plan, planOfUser, deliver, planChanges };
}

const checkoutCompleted = (userId: string, planId: string) => ({
  id: 'cs_test_1',
  object: 'checkout.session',
  mode: 'subscription',
  payment_status: 'paid',
  client_reference_id: userId,
  customer: 'cus_1',
  subscription: 'sub_1',
  metadata: { userId, planId },
});
const invoice = (price: string, periodEnd = PERIOD_END) => ({
  id: 'in_1',
  object: 'invoice',
  customer: 'cus_1',
  parent: { subscription_details: { subscription: 'sub_1', metadata: {} } },
  lines: { data: [{ pricing: { price_details: { price } }, period: { end: periodEnd } }] },
});

describe('billing without a payment provider', () => {
  it('explains that billing is not set up and that an administrator can change the plan', async () => {
    const w = await world(false);
    const pro = await w.plan('pro');
    await expect(w.auth.billing.requestChange(w.user.id, pro.id)).rejects.toMatchObject({
      kind: 'FORBIDDEN',
      code: 'BILLING_NOT_CONFIGURED',
      message: BILLING_NOT_CONFIGURED_MESSAGE,
    });
    expect(BILLING_NOT_CONFIGURED_MESSAGE).toContain('An administrator can change your plan');
    expect(await w.planOfUser()).toBe('Free');
    await expect(w.auth.billing.state(w.user.id)).resolves.toEqual({ enabled: false, subscription: null });
  });

  it('refuses webhooks as not found: there is nothing to verify them with', async () => {
    const w = await world(false);
    await expect(w.deliver('invoice.paid', invoice(PRICES.pro))).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });
});

describe('billing through Stripe', () => {
  it('sends an upgrade to Checkout and changes the plan only when the paid session arrives, once', async () => {
    const w = await world();
    const pro = await w.plan('pro');
    const change = await w.auth.billing.requestChange(w.user.id, pro.id);
    expect(change).toMatchObject({
      changed: false,
      checkoutUrl: 'https://checkout.stripe.com/c/pay/cs_test_1',
    });
    expect(change.plan.name).toBe('Free');
    expect(w.calls).toEqual([['checkout', PRICES.pro, pro.id]]);
    expect(await w.planOfUser()).toBe('Free');

    await expect(
      w.deliver('checkout.session.completed', checkoutCompleted(w.user.id, pro.id), 'evt_a'),
    ).resolves.toEqual({
      duplicate: false,
    });
    expect(await w.planOfUser()).toBe('Pro');
    await expect(
      w.deliver('checkout.session.completed', checkoutCompleted(w.user.id, pro.id), 'evt_a'),
    ).resolves.toEqual({
      duplicate: true,
    });
    expect(w.planChanges()).toEqual([{ userId: w.user.id, planId: pro.id, planName: 'Pro' }]);
  });

  it('acts on one of several deliveries of an event arriving at once; the others are told to come again', async () => {
    const w = await world();
    const pro = await w.plan('pro');
    const deliveries = await Promise.allSettled(
      [1, 2, 3, 4, 5].map(() =>
        w.deliver('checkout.session.completed', checkoutCompleted(w.user.id, pro.id), 'evt_burst'),
      ),
    );
    expect(deliveries.filter((d) => d.status === 'fulfilled')).toEqual([
      { status: 'fulfilled', value: { duplicate: false } },
    ]);
    for (const d of deliveries.filter((r) => r.status === 'rejected'))
      expect(d.reason).toMatchObject({ kind: 'CONFLICT', message: EVENT_BUSY_MESSAGE });
    expect(w.planChanges()).toEqual([{ userId: w.user.id, planId: pro.id, planName: 'Pro' }]);
    // Sent again later, they are duplicates.
    await expect(
      w.deliver('checkout.session.completed', checkoutCompleted(w.user.id, pro.id), 'evt_burst'),
    ).resolves.toEqual({ duplicate: true });
    expect(w.planChanges()).toHaveLength(1);
  });

  it('lets the next delivery act when handling an event failed', async () => {
    const w = await world();
    const pro = await w.plan('pro');
    const get = w.stores.users.get;
    w.stores.users.get = async () => {
      throw new Error('database unavailable');
    };
    await expect(
      w.deliver('checkout.session.completed', checkoutCompleted(w.user.id, pro.id), 'evt_retry'),
    ).rejects.toThrow('database unavailable');
    w.stores.users.get = get;
    await expect(
      w.deliver('checkout.session.completed', checkoutCompleted(w.user.id, pro.id), 'evt_retry'),
    ).resolves.toEqual({ duplicate: false });
    expect(await w.planOfUser()).toBe('Pro');
  });

  it('refuses a payload whose signature does not verify, and changes nothing', async () => {
    const w = await world();
    const pro = await w.plan('pro');
    const payload = JSON.stringify({
      id: 'evt_forged',
      object: 'event',
      type: 'checkout.session.completed',
      data: { object: checkoutCompleted(w.user.id, pro.id) },
    });
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_someone_else' });
    await expect(w.auth.billing.webhook(Buffer.from(payload), header)).rejects.toMatchObject({
      kind: 'BAD_INPUT',
      message: 'Webhook signature verification failed',
    });
    expect(await w.planOfUser()).toBe('Free');
    expect(w.stores.billing.processed.size).toBe(0);
    await expect(
      w.deliver('checkout.session.completed', checkoutCompleted(w.user.id, pro.id), 'evt_forged'),
    ).resolves.toEqual({ duplicate: false });
  });

  it('renews on invoice.paid and moves a cancelled subscription to Free at the end of the period', async () => {
    const w = await world();
    const [pro, free] = [await w.plan('pro'), await w.plan('free')];
    await w.deliver('checkout.session.completed', checkoutCompleted(w.user.id, pro.id));
    await w.deliver('invoice.paid', invoice(PRICES.pro));
    expect((await w.auth.billing.state(w.user.id)).subscription).toMatchObject({
      status: 'active',
      currentPeriodEnd: new Date(PERIOD_END * 1000),
    });

    const down = await w.auth.billing.requestChange(w.user.id, free.id);
    expect(down).toMatchObject({ changed: false, effectiveAt: new Date(PERIOD_END * 1000) });
    expect(down.nextPlan?.name).toBe('Free');
    expect(w.calls.at(-1)).toEqual(['cancelAtPeriodEnd', 'sub_1']);
    expect(await w.planOfUser()).toBe('Pro'); // the paid period is honoured

    await w.deliver('customer.subscription.updated', {
      id: 'sub_1',
      object: 'subscription',
      status: 'active',
      cancel_at_period_end: true,
      items: { data: [{ current_period_end: PERIOD_END }] },
    });
    expect((await w.auth.billing.state(w.user.id)).subscription).toMatchObject({
      cancelAtPeriodEnd: true,
      pendingPlanId: free.id,
    });
    await w.deliver('customer.subscription.deleted', {
      id: 'sub_1',
      object: 'subscription',
      status: 'canceled',
      cancellation_details: { reason: 'cancellation_requested' },
    });
    expect(await w.planOfUser()).toBe('Free');
    expect(w.published.filter((p) => p.subject === 'auth.billing.plan_lapsed')).toEqual([]);
    await expect(w.auth.billing.state(w.user.id)).resolves.toEqual({ enabled: true, subscription: null });
  });

  it('keeps the plan while renewals fail, then moves the user to Free with a lapse event', async () => {
    const w = await world();
    const pro = await w.plan('pro');
    await w.deliver('checkout.session.completed', checkoutCompleted(w.user.id, pro.id));
    await w.deliver('invoice.payment_failed', invoice(PRICES.pro));
    expect((await w.auth.billing.state(w.user.id)).subscription?.status).toBe('past_due');
    expect(await w.planOfUser()).toBe('Pro');

    const deleted = {
      id: 'sub_1',
      object: 'subscription',
      status: 'canceled',
      cancellation_details: { reason: 'payment_failed' },
    };
    await w.deliver('customer.subscription.deleted', deleted, 'evt_del');
    await w.deliver('customer.subscription.deleted', deleted, 'evt_del');
    expect(await w.planOfUser()).toBe('Free');
    expect(w.published.filter((p) => p.subject === 'auth.billing.plan_lapsed').map((p) => p.data)).toEqual([
      { userId: w.user.id, previousPlanName: 'Pro', planName: 'Free' },
    ]);
  });

  it('downgrades between paid plans from the next renewal, and upgrades once the prorated invoice is paid', async () => {
    const w = await world();
    const [pro, starter, business] = [await w.plan('pro'), await w.plan('starter'), await w.plan('business')];
    await w.deliver('checkout.session.completed', checkoutCompleted(w.user.id, pro.id));
    await w.deliver('invoice.paid', invoice(PRICES.pro));

    const down = await w.auth.billing.requestChange(w.user.id, starter.id);
    expect(down).toMatchObject({ changed: false, effectiveAt: new Date(PERIOD_END * 1000) });
    expect(w.calls.at(-1)).toEqual(['changePrice', 'sub_1', PRICES.starter, false]);
    expect(await w.planOfUser()).toBe('Pro');
    await w.deliver('invoice.paid', invoice(PRICES.starter, PERIOD_END + 30 * 86_400));
    expect(await w.planOfUser()).toBe('Starter');

    const up = await w.auth.billing.requestChange(w.user.id, business.id);
    expect(up.effectiveAt).toBeUndefined();
    expect(w.calls.at(-1)).toEqual(['changePrice', 'sub_1', PRICES.business, true]);
    expect(await w.planOfUser()).toBe('Starter');
    await w.deliver('invoice.paid', invoice(PRICES.business, PERIOD_END + 30 * 86_400));
    expect(await w.planOfUser()).toBe('Business');
  });

  it('lets a scheduled cancellation be undone before the period ends', async () => {
    const w = await world();
    const [pro, free] = [await w.plan('pro'), await w.plan('free')];
    await w.deliver('checkout.session.completed', checkoutCompleted(w.user.id, pro.id));
    await w.deliver('invoice.paid', invoice(PRICES.pro));
    await w.auth.billing.requestChange(w.user.id, free.id);
    const kept = await w.auth.billing.requestChange(w.user.id, pro.id);
    expect(kept).toMatchObject({ changed: false });
    expect(kept.nextPlan).toBeUndefined();
    expect(w.calls.at(-1)).toEqual(['changePrice', 'sub_1', PRICES.pro, false]);
    const sub = (await w.auth.billing.state(w.user.id)).subscription;
    expect(sub).toMatchObject({ cancelAtPeriodEnd: false });
    expect(sub?.pendingPlanId).toBeUndefined();
    expect(await w.planOfUser()).toBe('Pro');
  });
});

describe('deleting a user who pays', () => {
  async function paying() {
    const w = await world();
    const pro = await w.plan('pro');
    await w.deliver('checkout.session.completed', checkoutCompleted(w.user.id, pro.id));
    const admin = await w.auth.accounts.register({
      name: 'Op',
      email: 'op@example.com',
      password: 'secret-1',
    });
    w.calls.length = 0;
    return { w, adminId: admin.user.id };
  }

  it('cancels the subscription at Stripe at once', async () => {
    const { w, adminId } = await paying();
    await w.auth.admin.remove(adminId, w.user.id);
    expect(w.calls).toEqual([['cancelNow', 'sub_1']]);
    expect(await w.stores.billing.subscriptionOf(w.user.id)).toBeNull();
    // Stripe's own notice of the cancellation, arriving later, is a no-op.
    await expect(w.deliver('customer.subscription.deleted', { id: 'sub_1' })).resolves.toEqual({
      duplicate: false,
    });
  });

  it('deletes the user even with Stripe down, and the retry cancels the subscription later', async () => {
    const { w, adminId } = await paying();
    w.failing.cancelNow = true;
    await expect(w.auth.admin.remove(adminId, w.user.id)).resolves.toBeUndefined();
    expect(await w.stores.users.get(w.user.id)).toBeNull();
    expect(await w.stores.billing.subscriptionOf(w.user.id)).not.toBeNull();
    await w.auth.billing.retryCancellations();
    expect(await w.stores.billing.subscriptionOf(w.user.id)).not.toBeNull();
    w.failing.cancelNow = false;
    await w.auth.billing.retryCancellations();
    expect(w.calls).toEqual([
      ['cancelNow', 'sub_1'],
      ['cancelNow', 'sub_1'],
      ['cancelNow', 'sub_1'],
    ]);
    expect(await w.stores.billing.subscriptionOf(w.user.id)).toBeNull();
  });

  it('leaves the subscriptions of users who still exist alone', async () => {
    const { w } = await paying();
    await w.auth.billing.retryCancellations();
    expect(w.calls).toEqual([]);
    expect(await w.stores.billing.subscriptionOf(w.user.id)).not.toBeNull();
  });
});
