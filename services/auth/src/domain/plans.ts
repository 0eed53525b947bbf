import { backupFrequency, badInput, notFound } from '@coffer/common';
import type { auth } from '@coffer/proto';
import type { AuthEvents } from '../events.js';
import { isId, type NewPlan, type PlanRecord, type PlanStore, type UserStore } from '../store/types.js';

const GB = 1024 ** 3;

/**
 * The catalogue seeded at start: one Free plan and three paid ones (limits in hours and bytes).
 * GFS limits (issue 20) grow with the plan like its retention: Free reaches back a month (4
 * weeks), Starter a year, Pro 3 years, Business 10; only the hourly plans keep hourly backups.
 */
export const PLAN_CATALOGUE: NewPlan[] = [
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
    gfsLimits: { hourly: 0, daily: 7, weekly: 4, monthly: 0, yearly: 0 },
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
    gfsLimits: { hourly: 0, daily: 14, weekly: 8, monthly: 12, yearly: 1 },
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
    gfsLimits: { hourly: 48, daily: 31, weekly: 12, monthly: 24, yearly: 3 },
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
    gfsLimits: { hourly: 168, daily: 90, weekly: 52, monthly: 60, yearly: 10 },
    features: [
      'Unlimited databases',
      '2 TB encrypted storage',
      'Hourly backups',
      '180-day retention',
      'Dedicated support',
    ],
  },
];

export const toPlanMessage = (p: PlanRecord): auth.Plan => ({
  id: p.id,
  name: p.name,
  price: p.price,
  popular: p.popular,
  dbLimit: p.dbLimit,
  retentionLimit: p.retentionLimit,
  storageLimit: p.storageLimit,
  frequencyLimit: backupFrequency.toProto(p.frequencyLimit),
  gfsLimits: p.gfsLimits,
  features: p.features.map((text) => ({ text })),
});

export function plans(deps: {
  store: PlanStore;
  users: Pick<UserStore, 'get' | 'setPlan'>;
  events: AuthEvents;
}) {
  const { store, users } = deps;

  async function byId(planId: string): Promise<PlanRecord> {
    if (!isId(planId)) throw badInput('Unknown plan');
    const plan = await store.get(planId);
    if (!plan) throw notFound('Plan not found');
    return plan;
  }

  /** `by`: the admin who changed the plan (audit names them as the actor), else the user did. */
  async function assign(
    userId: string,
    plan: PlanRecord,
    by?: { actorId: string; email: string },
  ): Promise<PlanRecord> {
    const before = await users.setPlan(userId, plan.id);
    if (before === null) throw notFound('User not found');
    if (before !== plan.id) {
      await deps.events.publish('auth.user.plan_changed', {
        userId,
        planId: plan.id,
        planName: plan.name,
        ...(by && by.actorId !== userId ? by : {}),
      });
    }
    return plan;
  }

  return {
    /** Inserts missing catalogue plans; existing ones keep their ids (users point at them). */
    async seed(): Promise<void> {
      for (const plan of PLAN_CATALOGUE) await store.ensure(plan);
    },

    async list(): Promise<PlanRecord[]> {
      return store.list();
    },

    async freePlan(): Promise<PlanRecord> {
      const plan = await store.byKey('free');
      if (!plan) throw new Error('plan catalogue not seeded');
      return plan;
    },

    byId,

    async ofUser(userId: string): Promise<PlanRecord> {
      const user = await users.get(userId);
      if (!user) throw notFound('User not found');
      return byId(user.plan);
    },

    assign,
  };
}
export type Plans = ReturnType<typeof plans>;
