import type { schedule } from '@coffer/proto';
import type { AuthModels } from '../model.js';
import { isId, type PlanRecord, type PlanStore } from './types.js';
import type { Lean } from './shape.js';

function toPlan(d: Lean): PlanRecord {
  const p = d as Lean &
    Omit<PlanRecord, 'id' | 'features' | 'gfsLimits'> & {
      features?: Array<{ text: string }>;
      gfsLimits?: Partial<schedule.GfsCounts> | null;
    };
  return {
    id: d._id.toHexString(),
    key: p.key,
    name: p.name,
    price: p.price,
    popular: p.popular ?? false,
    dbLimit: p.dbLimit,
    retentionLimit: p.retentionLimit,
    storageLimit: p.storageLimit,
    frequencyLimit: p.frequencyLimit,
    gfsLimits: {
      hourly: p.gfsLimits?.hourly ?? 0,
      daily: p.gfsLimits?.daily ?? 0,
      weekly: p.gfsLimits?.weekly ?? 0,
      monthly: p.gfsLimits?.monthly ?? 0,
      yearly: p.gfsLimits?.yearly ?? 0,
    },
    features: (p.features ?? []).map((f) => f.text),
    order: p.order ?? 0,
  };
}

export function planStore({ Plan }: Pick<AuthModels, 'Plan'>): PlanStore {
  return {
    async ensure({ features, ...plan }) {
      await Plan.updateOne(
        { key: plan.key },
        { $setOnInsert: { ...plan, features: features.map((text) => ({ text })) } },
        { upsert: true },
      );
      // A plan seeded before GFS retention existed gets the catalogue's limits once.
      await Plan.updateOne({ key: plan.key, gfsLimits: null }, { $set: { gfsLimits: plan.gfsLimits } });
    },
    async list() {
      return (await Plan.find().sort({ order: 1, price: 1 }).lean<Lean[]>()).map(toPlan);
    },
    async get(id) {
      if (!isId(id)) return null;
      const d = await Plan.findById(id).lean<Lean>();
      return d ? toPlan(d) : null;
    },
    async byKey(key) {
      const d = await Plan.findOne({ key }).lean<Lean>();
      return d ? toPlan(d) : null;
    },
  };
}
