import { Types, type Model } from 'mongoose';
import { olderThan } from '@coffer/common';
import type { OrchestratorModels } from '../model.js';
import type { BackupRecord, BackupStore, JobFilter, JobStore, RestoreRecord, RestoreStore } from './types.js';
import { withId, type Lean } from './shape.js';

export const validId = (id: string) => Types.ObjectId.isValid(id) && id.length === 24;
const ACTIVE = ['pending', 'in-progress'];
const FINISHED = ['completed', 'failed'];
/** Never a backup still under the retention lock (domain/retention-lock.ts, lockHolds). */
const unlockedAt = (now: Date) => ({ $or: [{ lockedUntil: null }, { lockedUntil: { $lte: now } }] });

/** The conditional-update core both job kinds share: every transition is one findOneAndUpdate. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function jobCore<R extends { status: string }>(M: Model<any>): JobStore<R> {
  const shape = (d: Lean | null) => (d ? withId<R>(d) : null);
  return {
    async get(id) {
      if (!validId(id)) return null;
      return shape(await M.findById(id).lean<Lean>());
    },
    async transition(filter: JobFilter<R['status']>, set) {
      if (!validId(filter.id)) return null;
      const query: Record<string, unknown> = { _id: filter.id, status: { $in: [...filter.status] } };
      if (filter.userId !== undefined) query.userId = filter.userId;
      if (filter.agentId !== undefined) query.agentId = filter.agentId;
      if (filter.commandId !== undefined) query.commandId = filter.commandId;
      const { id: _id, ...fields } = set as Partial<R> & { id?: string };
      return shape(await M.findOneAndUpdate(query, { $set: fields }, { new: true }).lean<Lean>());
    },
    async unconfirmed(before) {
      const docs = await M.find({ status: 'pending', commandSentAt: { $lt: before } }).lean<Lean[]>();
      return docs.map((d) => withId<R>(d));
    },
    async running() {
      const docs = await M.find({ status: 'in-progress' }).lean<Lean[]>();
      return docs.map((d) => withId<R>(d));
    },
    async ofAgent(agentId, status) {
      const docs = await M.find({ agentId, status: { $in: [...status] } }).lean<Lean[]>();
      return docs.map((d) => withId<R>(d));
    },
    async outcomeUnpublished() {
      const docs = await M.find({ outcomePending: true, status: { $in: FINISHED } }).lean<Lean[]>();
      return docs.map((d) => withId<R>(d));
    },
  };
}

export function backupStore({ Backup }: Pick<OrchestratorModels, 'Backup'>): BackupStore {
  const core = jobCore<BackupRecord>(Backup);
  const shape = (d: Lean) => withId<BackupRecord>(d);
  const notFailed = { status: { $in: ['pending', 'in-progress', 'completed'] } };
  return {
    ...core,
    async insert(rec) {
      const { id, ...fields } = rec;
      await Backup.create({ _id: new Types.ObjectId(id), ...fields });
      return (await core.get(id))!;
    },
    async remove(id) {
      if (!validId(id)) return false;
      return (await Backup.deleteOne({ _id: id })).deletedCount === 1;
    },
    async list(userId, limit, before) {
      const docs = await Backup.find({ userId, status: { $ne: 'deleting' }, ...olderThan(before) })
        .sort({ createdAt: -1, _id: -1 })
        .limit(limit)
        .lean<Lean[]>();
      return docs.map(shape);
    },
    async startedSince(userId, databaseName, since) {
      const docs = await Backup.find({ userId, databaseName, ...notFailed, createdAt: { $gte: since } })
        .sort({ createdAt: 1, _id: 1 })
        .lean<Lean[]>();
      return docs.map(shape);
    },
    async latestStarted(userId, databaseName) {
      const d = await Backup.findOne({ userId, databaseName, ...notFailed })
        .sort({ createdAt: -1, _id: -1 })
        .lean<Lean>();
      return d ? shape(d) : null;
    },
    async latestCompleted(userId, databaseName) {
      const d = await Backup.findOne({ userId, databaseName, status: 'completed' })
        .sort({ createdAt: -1, _id: -1 })
        .lean<Lean>();
      return d ? shape(d) : null;
    },
    async usersWithFinishedBefore(before) {
      return Backup.distinct('userId', { status: { $in: FINISHED }, createdAt: { $lt: before } });
    },
    async claimExpired(userId, before, now, skip, rule) {
      const query: Record<string, unknown> = {
        userId,
        status: { $in: FINISHED },
        createdAt: { $lt: before },
        ...unlockedAt(now),
      };
      if (skip.length) query._id = { $nin: skip.map((s) => new Types.ObjectId(s)) };
      const d = await Backup.findOneAndUpdate(
        query,
        { $set: { status: 'deleting', deletingSince: now, deleteReason: 'auto', deleteRule: rule ?? null } },
        { new: false, sort: { createdAt: 1, _id: 1 } },
      ).lean<Lean>();
      return d ? shape(d) : null;
    },
    async claimForRetention(userId, backupId, now, rule) {
      if (!validId(backupId)) return null;
      const d = await Backup.findOneAndUpdate(
        { _id: new Types.ObjectId(backupId), userId, status: { $in: FINISHED }, ...unlockedAt(now) },
        { $set: { status: 'deleting', deletingSince: now, deleteReason: 'auto', deleteRule: rule } },
        { new: false },
      ).lean<Lean>();
      return d ? shape(d) : null;
    },
    async reclaimStaleDeletion(staleBefore, now) {
      const d = await Backup.findOneAndUpdate(
        { status: 'deleting', deletingSince: { $lt: staleBefore } },
        { $set: { deletingSince: now } },
        { new: true },
      ).lean<Lean>();
      return d ? shape(d) : null;
    },
    async ofUser(userId) {
      return (await Backup.find({ userId }).lean<Lean[]>()).map(shape);
    },
    async setCollections(backupId, agentId, collections) {
      if (!validId(backupId)) return false;
      // Only the first report is kept; a repeated one finds the field set and changes nothing.
      const mine = await Backup.findOne({ _id: backupId, agentId }, { collections: 1 }).lean<Lean>();
      if (!mine) return false;
      // FerretDB rewrites the whole document: never over a deletion's claim.
      if (!mine.collections)
        await Backup.updateOne({ _id: backupId, agentId, status: 'completed' }, { $set: { collections } });
      return true;
    },
    async stats() {
      // Sizes are summed in the service rather than with $group, keeping to queries FerretDB 1.x
      // runs everywhere; only the size field travels.
      const docs = await Backup.find({ status: { $ne: 'deleting' } }, { size: 1 }).lean();
      return { totalCount: docs.length, totalSize: docs.reduce((n, d) => n + (d.size ?? 0), 0) };
    },
  };
}

export function restoreStore({ Restore }: Pick<OrchestratorModels, 'Restore'>): RestoreStore {
  const core = jobCore<RestoreRecord>(Restore);
  const shape = (d: Lean) => withId<RestoreRecord>(d);
  return {
    ...core,
    async insert(rec) {
      const { id, ...fields } = rec;
      await Restore.create({ _id: new Types.ObjectId(id), ...fields });
      return (await core.get(id))!;
    },
    async list(userId, limit, before) {
      const docs = await Restore.find({ userId, ...olderThan(before) })
        .sort({ createdAt: -1, _id: -1 })
        .limit(limit)
        .lean<Lean[]>();
      return docs.map(shape);
    },
    async activeForBackup(backupId) {
      return (await Restore.find({ backupId, status: { $in: ACTIVE } }).lean<Lean[]>()).map(shape);
    },
    async activeForDatabase(userId, databaseName) {
      return (await Restore.find({ userId, databaseName, status: { $in: ACTIVE } }).lean<Lean[]>()).map(
        shape,
      );
    },
    async removeByUser(userId) {
      await Restore.deleteMany({ userId });
    },
  };
}
