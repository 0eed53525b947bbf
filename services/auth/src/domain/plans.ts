import { Types } from 'mongoose';
import { badInput, forbidden, notFound } from '@coffer/common';
import type { auth } from '@coffer/proto';
import type { AuthModels, PlanDoc } from '../model.js';
import type { AuthEvents } from '../events.js';

const GB = 1024 ** 3;

/** The catalogue seeded at start: one Free plan and three paid ones (limits in hours and bytes). */
export const PLAN_CATALOGUE = [
  {
    key: 'free',
    order: 0,
    name: 'Free',
    price: 0,
    popular: false,
    dbLimit: 1,
    retentionLimit: 168,
    storageLimit: 1 * GB,
    frequencyLimit: 24,
    features: [
      '1 database',
      '1 GB encrypted storage',
      'Daily backups',
      '7-day retention',
      'Email notifications',
    ],
  },
  {
    key: 'starter',
    order: 1,
    name: 'Starter',
    price: 9,
    popular: false,
    dbLimit: 3,
    retentionLimit: 720,
    storageLimit: 25 * GB,
    frequencyLimit: 24,
    features: [
      '3 databases',
      '25 GB encrypted storage',
      'Daily backups',
      '30-day retention',
      'Email support',
    ],
  },
  {
    key: 'pro',
    order: 2,
    name: 'Pro',
    price: 29,
    popular: true,
    dbLimit: 10,
    retentionLimit: 2160,
    storageLimit: 250 * GB,
    frequencyLimit: 1,
    features: [
      '10 databases',
      '250 GB encrypted storage',
      'Hourly backups',
      '90-day retention',
      'Priority support',
    ],
  },
  {
    key: 'business',
    order: 3,
    name: 'Business',
    price: 99,
    popular: false,
    dbLimit: 1000,
    retentionLimit: 4320,
    storageLimit: 2048 * GB,
    frequencyLimit: 1,
    features: [
      'Unlimited databases',
      '2 TB encrypted storage',
      'Hourly backups',
      '180-day retention',
      'Dedicated support',
    ],
  },
];

export const toPlanMessage = (p: PlanDoc): auth.Plan => ({
  id: p._id.toString(),
  name: p.name,
  price: p.price,
  popular: p.popular ?? false,
  dbLimit: p.dbLimit,
  retentionLimit: p.retentionLimit,
  storageLimit: p.storageLimit,
  frequencyLimit: p.frequencyLimit,
  features: p.features.map((f) => ({ text: f.text })),
});

export function plans(deps: { models: Pick<AuthModels, 'Plan' | 'User'>; events: AuthEvents }) {
  const { Plan, User } = deps.models;

  async function byId(planId: string): Promise<PlanDoc> {
    if (!Types.ObjectId.isValid(planId)) throw badInput('Unknown plan');
    const plan = await Plan.findById(planId).lean<PlanDoc>();
    if (!plan) throw notFound('Plan not found');
    return plan;
  }

  return {
    /** Inserts missing catalogue plans; existing ones keep their ids (users point at them). */
    async seed(): Promise<void> {
      for (const { features, ...p } of PLAN_CATALOGUE) {
        await Plan.updateOne(
          { key: p.key },
          { $setOnInsert: { ...p, features: features.map((text) => ({ text })) } },
          { upsert: true },
        );
      }
    },

    async list(): Promise<PlanDoc[]> {
      return Plan.find().sort({ order: 1, price: 1 }).lean<PlanDoc[]>();
    },

    async freePlan(): Promise<PlanDoc> {
      const plan = await Plan.findOne({ key: 'free' }).lean<PlanDoc>();
      if (!plan) throw new Error('plan catalogue not seeded');
      return plan;
    },

    byId,

    async ofUser(userId: string): Promise<PlanDoc> {
      const user = await User.findById(userId, { plan: 1 }).lean();
      if (!user) throw notFound('User not found');
      return byId(user.plan.toString());
    },

    /**
     * A user's own plan change. Only free (price 0) plans can be chosen here: paid plans need a
     * payment flow the product does not have yet.
     */
    async changeOwn(userId: string, planId: string): Promise<PlanDoc> {
      const plan = await byId(planId);
      if (plan.price !== 0) throw forbidden('Paid plans cannot be selected here yet', 'PAYMENT_REQUIRED');
      return this.assign(userId, plan);
    },

    async assign(userId: string, plan: PlanDoc): Promise<PlanDoc> {
      const before = await User.findOneAndUpdate({ _id: userId }, { $set: { plan: plan._id } }).lean();
      if (!before) throw notFound('User not found');
      if (before.plan.toString() !== plan._id.toString()) {
        await deps.events.publish('auth.user.plan_changed', {
          userId,
          planId: plan._id.toString(),
          planName: plan.name,
        });
      }
      return plan;
    },
  };
}
export type Plans = ReturnType<typeof plans>;
