import { isDuplicateKeyError } from '@coffer/common';
import type { AuthModels } from '../model.js';
import type { BillingStore, SubscriptionRecord } from './types.js';
import type { Lean } from './shape.js';

function toSubscription(d: Lean): SubscriptionRecord {
  const s = d as Lean & {
    userId: { toHexString(): string };
    planId: { toHexString(): string };
    pendingPlanId?: { toHexString(): string } | null;
    customerId: string;
    subscriptionId: string;
    status: string;
    cancelAtPeriodEnd?: boolean;
    currentPeriodEnd?: Date | null;
  };
  return {
    userId: s.userId.toHexString(),
    customerId: s.customerId,
    subscriptionId: s.subscriptionId,
    planId: s.planId.toHexString(),
    status: s.status,
    cancelAtPeriodEnd: s.cancelAtPeriodEnd ?? false,
    ...(s.currentPeriodEnd ? { currentPeriodEnd: s.currentPeriodEnd } : {}),
    ...(s.pendingPlanId ? { pendingPlanId: s.pendingPlanId.toHexString() } : {}),
  };
}

export function billingStore({
  Subscription,
  BillingEvent,
}: Pick<AuthModels, 'Subscription' | 'BillingEvent'>): BillingStore {
  return {
    async subscriptionOf(userId) {
      const d = await Subscription.findOne({ userId }).lean<Lean>();
      return d ? toSubscription(d) : null;
    },
    async bySubscriptionId(subscriptionId) {
      const d = await Subscription.findOne({ subscriptionId }).lean<Lean>();
      return d ? toSubscription(d) : null;
    },
    async saveSubscription(r) {
      await Subscription.updateOne(
        { userId: r.userId },
        {
          $set: {
            customerId: r.customerId,
            subscriptionId: r.subscriptionId,
            planId: r.planId,
            status: r.status,
            cancelAtPeriodEnd: r.cancelAtPeriodEnd,
            currentPeriodEnd: r.currentPeriodEnd ?? null,
            pendingPlanId: r.pendingPlanId ?? null,
          },
        },
        { upsert: true },
      );
    },
    async removeSubscription(userId, subscriptionId) {
      await Subscription.deleteOne({ userId, subscriptionId });
    },
    async allSubscriptions() {
      return (await Subscription.find({}).lean<Lean[]>()).map(toSubscription);
    },
    async claimEvent(eventId, type, at, staleBefore) {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await BillingEvent.create({ _id: eventId, type, at, state: 'processing' });
          return 'claimed';
        } catch (err) {
          if (!isDuplicateKeyError(err)) throw err;
        }
        const takenOver = await BillingEvent.updateOne(
          { _id: eventId, state: 'processing', at: { $lt: staleBefore } },
          { $set: { at } },
        );
        if (takenOver.matchedCount === 1) return 'claimed';
        const d = await BillingEvent.findById(eventId, { state: 1 }).lean<Lean>();
        // Records from before claims existed carry no state: they were handled.
        if (d) return d.state === 'processing' ? 'busy' : 'done';
        // Released in the meantime: claim it afresh.
      }
      return 'busy';
    },
    async finishEvent(eventId) {
      await BillingEvent.updateOne({ _id: eventId }, { $set: { state: 'done' } });
    },
    async releaseEvent(eventId, at) {
      await BillingEvent.deleteOne({ _id: eventId, state: 'processing', at });
    },
  };
}
