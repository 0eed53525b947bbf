import type { AuthModels } from '../model.js';
import { isId, type PlanRecord, type PlanStore } from './types.js';
import type { Lean } from './shape.js';

function toPlan(d: Lean): PlanRecord {
  const p = d as Lean & Omit<PlanRecord, 'id' | 'features'> & { features?: Array<{ text: string }> };
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
