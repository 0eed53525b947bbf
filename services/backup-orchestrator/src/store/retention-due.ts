import { isDuplicateKeyError } from '@coffer/common';
import type { OrchestratorModels } from '../model.js';
import { dueBucket, dueFields } from '../domain/due-bucket.js';
import type { RetentionDueRecord, RetentionDueStore } from './types.js';

/** The record that says the one-off filing is done: no user id looks like it, and it is never due. */
export const MIGRATED = '#filed-accounts-with-backups';

export function retentionDueStore({
  RetentionDue,
}: Pick<OrchestratorModels, 'RetentionDue'>): RetentionDueStore {
  return {
    async mark(userId, at) {
      await RetentionDue.updateOne({ userId }, { $set: dueFields(at) }, { upsert: true });
    },
    async markMissing(userIds, at) {
      // Once per process start: one read of the (small) collection, then inserts for the rest.
      const filed = new Set((await RetentionDue.find({}, { userId: 1 }).lean()).map((d) => d.userId));
      const missing = [...new Set(userIds)].filter((u) => !filed.has(u));
      for (let i = 0; i < missing.length; i += 500) {
        const docs = missing.slice(i, i + 500).map((userId) => ({ userId, ...dueFields(at) }));
        try {
          await RetentionDue.insertMany(docs, { ordered: false });
        } catch (err) {
          // Another replica filed some of them meanwhile: theirs stand.
          if (!isDuplicateKeyError(err)) throw err;
        }
      }
    },
    async dueIn(bucket, afterUserId, limit) {
      const docs = await RetentionDue.find({
        dueBucket: bucket,
        ...(afterUserId ? { userId: { $gt: afterUserId } } : {}),
      })
        .sort({ userId: 1 })
        .limit(limit)
        .lean();
      return docs.map((d): RetentionDueRecord => ({
        userId: d.userId,
        dueAt: d.dueAt ?? null,
        dueBucket: d.dueBucket ?? null,
      }));
    },
    async catchUpDue(now) {
      await RetentionDue.updateMany(
        { dueAt: { $lte: now }, dueBucket: { $lt: dueBucket(now) } },
        { $set: dueFields(now) },
      );
    },
    async remove(userId) {
      await RetentionDue.deleteOne({ userId });
    },
    async migrated() {
      return (await RetentionDue.countDocuments({ userId: MIGRATED })) > 0;
    },
    async setMigrated() {
      await RetentionDue.updateOne(
        { userId: MIGRATED },
        { $set: { dueAt: null, dueBucket: null } },
        { upsert: true },
      );
    },
  };
}
