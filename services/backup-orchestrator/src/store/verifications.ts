import { Types } from 'mongoose';
import type { OrchestratorModels } from '../model.js';
import { jobCore } from './jobs.js';
import { withId, type Lean } from './shape.js';
import type { VerificationRecord, VerificationStore } from './types.js';

const ACTIVE = ['pending', 'in-progress'];

export function verificationStore({
  Verification,
}: Pick<OrchestratorModels, 'Verification'>): VerificationStore {
  const core = jobCore<VerificationRecord>(Verification);
  const shape = (d: Lean) => withId<VerificationRecord>(d);
  return {
    ...core,
    async insert(rec) {
      const { id, ...fields } = rec;
      await Verification.create({ _id: new Types.ObjectId(id), ...fields });
      return (await core.get(id))!;
    },
    async latestOf(backupIds) {
      const out = new Map<string, VerificationRecord>();
      if (!backupIds.length) return out;
      // Newest first: the first one seen of each backup is its newest.
      const docs = await Verification.find({ backupId: { $in: backupIds } })
        .sort({ createdAt: -1, _id: -1 })
        .lean<Lean[]>();
      for (const d of docs.map(shape)) if (!out.has(d.backupId)) out.set(d.backupId, d);
      return out;
    },
    async latestForDatabase(userId, databaseName) {
      const d = await Verification.findOne({ userId, databaseName })
        .sort({ createdAt: -1, _id: -1 })
        .lean<Lean>();
      return d ? shape(d) : null;
    },
    async activeForDatabase(userId, databaseName) {
      const docs = await Verification.find({ userId, databaseName, status: { $in: ACTIVE } }).lean<Lean[]>();
      return docs.map(shape);
    },
    async verifiedBackupIds(userId) {
      return new Set<string>(await Verification.distinct('backupId', { userId, status: 'completed' }));
    },
    async removeByUser(userId) {
      await Verification.deleteMany({ userId });
    },
  };
}
