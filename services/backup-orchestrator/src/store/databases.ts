import { Types } from 'mongoose';
import { isDuplicateKeyError } from '@coffer/common';
import type { OrchestratorModels } from '../model.js';
import type { DatabaseRecord, DatabaseStore } from './types.js';
import { withId, type Lean } from './shape.js';
import { dueBucket, dueFields } from '../domain/due-bucket.js';

export function databaseStore({ Database }: Pick<OrchestratorModels, 'Database'>): DatabaseStore {
  const validId = (id: string) => Types.ObjectId.isValid(id) && id.length === 24;
  const shape = (d: Lean) => withId<DatabaseRecord>(d);

  return {
    async ensure(userId, names, now) {
      if (!names.length) return;
      const known = new Set(
        (await Database.find({ userId, name: { $in: names } }, { name: 1 }).lean()).map((d) => d.name),
      );
      for (const name of names) {
        if (known.has(name)) continue;
        try {
          // Due at once: the scheduler decides (the first-backup grace, an agent reporting it).
          await Database.create({ userId, name, enabled: true, createdAt: now, ...dueFields(now) });
        } catch (err) {
          // Another agent of the same user reported it at the same moment.
          if (!isDuplicateKeyError(err)) throw err;
        }
      }
    },
    async list(userId) {
      const docs = await Database.find({ userId }).sort({ createdAt: 1, _id: 1 }).lean<Lean[]>();
      return docs.map(shape);
    },
    async get(userId, databaseId) {
      if (!validId(databaseId)) return null;
      const d = await Database.findOne({ _id: databaseId, userId }).lean<Lean>();
      return d ? shape(d) : null;
    },
    async byName(userId, name) {
      const d = await Database.findOne({ userId, name }).lean<Lean>();
      return d ? shape(d) : null;
    },
    async setEnabled(userId, databaseId, enabled) {
      if (!validId(databaseId)) return false;
      const res = await Database.updateOne({ _id: databaseId, userId }, { $set: { enabled } });
      return res.matchedCount === 1;
    },
    async setVerify(userId, databaseId, verify) {
      if (!validId(databaseId)) return false;
      const res = await Database.updateOne({ _id: databaseId, userId }, { $set: { verify } });
      return res.matchedCount === 1;
    },
    async enabled() {
      const docs = await Database.find({ enabled: true }).sort({ createdAt: 1, _id: 1 }).lean<Lean[]>();
      return docs.map(shape);
    },
    async markScheduled(userId, name, slotKey, nextDueAt) {
      await Database.updateOne(
        { userId, name },
        { $set: { lastScheduledSlot: slotKey, ...dueFields(nextDueAt) } },
      );
    },
    async dueIn(bucket, afterId, limit) {
      const docs = await Database.find({
        dueBucket: bucket,
        ...(afterId ? { _id: { $gt: new Types.ObjectId(afterId) } } : {}),
      })
        .sort({ _id: 1 })
        .limit(limit)
        .lean<Lean[]>();
      return docs.map(shape);
    },
    async setDue(userId, name, at) {
      await Database.updateOne({ userId, name }, { $set: dueFields(at) });
    },
    async dueAllOf(userId, at) {
      await Database.updateMany({ userId }, { $set: dueFields(at) });
    },
    async wakeParked(userId, at) {
      // A null filter is FerretDB's to evaluate, over the user's rows only (the equality on userId).
      await Database.updateMany({ userId, dueAt: null }, { $set: dueFields(at) });
    },
    async catchUpDue(now) {
      await Database.updateMany(
        {
          $or: [
            { dueBucket: { $exists: false } },
            { dueAt: { $lte: now }, dueBucket: { $lt: dueBucket(now) } },
          ],
        },
        { $set: dueFields(now) },
      );
    },
    async removeByUser(userId) {
      await Database.deleteMany({ userId });
    },
  };
}
