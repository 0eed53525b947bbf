import { isDuplicateKeyError } from '@coffer/common';
import type { OrchestratorModels } from '../model.js';
import type { LeaseStore } from './types.js';

export function leaseStore({ Lease }: Pick<OrchestratorModels, 'Lease'>): LeaseStore {
  return {
    async acquire(key, holder, now, until) {
      try {
        await Lease.create({ _id: key, holder, expiresAt: until });
        return true;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
      const r = await Lease.updateOne(
        { _id: key, expiresAt: { $lte: now } },
        { $set: { holder, expiresAt: until } },
      );
      return r.matchedCount === 1;
    },
    async release(key, holder) {
      await Lease.deleteOne({ _id: key, holder });
    },
  };
}
