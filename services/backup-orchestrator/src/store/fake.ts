import type {
  AgentRecord,
  AgentStore,
  BackupRecord,
  BackupStore,
  DatabaseRecord,
  DatabaseStore,
  JobFilter,
  JobStore,
  LeaseStore,
  RestoreRecord,
  RestoreStore,
  VerificationRecord,
  VerificationStore,
  RetentionDueRecord,
  RetentionDueStore,
  RetentionLockRecord,
  SettingsRecord,
  SettingsStore,
  Stores,
} from './types.js';
import { isOlderThan } from '@coffer/common';
import {
  copyRecord as copy,
  duplicateKeyError as duplicateKey,
  nextHexId as hexId,
} from '@coffer/common/testing';
import { lockHolds } from '../domain/retention-lock.js';
import { dueBucket, dueFields } from '../domain/due-bucket.js';
import { MIGRATED } from './retention-due.js';

// In-memory stores for unit tests, with the same unique keys, orderings and conditional updates as
// the mongoose ones. Records are copied in and out, as a database would.

const byCreated = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) =>
  a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id);

function jobCore<
  R extends { id: string; status: string; agentId: string; commandSentAt: Date } & Record<string, unknown>,
>(rows: Map<string, R>): JobStore<R> {
  const matches = (r: R, f: JobFilter<R['status']>) =>
    r.id === f.id &&
    f.status.includes(r.status) &&
    (f.userId === undefined || r.userId === f.userId) &&
    (f.agentId === undefined || r.agentId === f.agentId) &&
    (f.commandId === undefined || r.commandId === f.commandId);
  return {
    async get(id) {
      const r = rows.get(id);
      return r ? copy(r) : null;
    },
    async transition(filter, set) {
      const r = rows.get(filter.id);
      if (!r || !matches(r, filter)) return null;
      const next = { ...r, ...copy(set), id: r.id };
      rows.set(r.id, next);
      return copy(next);
    },
    async unconfirmed(before) {
      return [...rows.values()].filter((r) => r.status === 'pending' && r.commandSentAt < before).map(copy);
    },
    async running() {
      return [...rows.values()].filter((r) => r.status === 'in-progress').map(copy);
    },
    async ofAgent(agentId, status) {
      return [...rows.values()].filter((r) => r.agentId === agentId && status.includes(r.status)).map(copy);
    },
    async outcomeUnpublished() {
      return [...rows.values()]
        .filter((r) => r.outcomePending === true && (r.status === 'completed' || r.status === 'failed'))
        .map(copy);
    },
  };
}

export function fakeBackupStore(): BackupStore & { rows: Map<string, BackupRecord> } {
  const rows = new Map<string, BackupRecord & Record<string, unknown>>();
  const core = jobCore(rows);
  const live = (r: BackupRecord) => r.status !== 'failed' && r.status !== 'deleting';
  const finished = (r: BackupRecord) => r.status === 'completed' || r.status === 'failed';
  const all = () => [...rows.values()];
  return {
    rows,
    ...core,
    async insert(rec) {
      if (
        all().some(
          (r) =>
            r.userId === rec.userId &&
            r.databaseName === rec.databaseName &&
            r.scheduleSlot === rec.scheduleSlot,
        )
      )
        throw duplicateKey();
      const row = {
        startedAt: null,
        completedAt: null,
        error: null,
        absentSince: null,
        ...copy(rec),
        deletingSince: null,
      };
      rows.set(rec.id, row);
      return copy(row);
    },
    async remove(id) {
      return rows.delete(id);
    },
    async list(userId, limit, before) {
      return all()
        .filter((r) => r.userId === userId && r.status !== 'deleting' && isOlderThan(r, before))
        .sort((a, b) => byCreated(b, a))
        .slice(0, limit)
        .map(copy);
    },
    async startedSince(userId, databaseName, since) {
      return all()
        .filter(
          (r) => r.userId === userId && r.databaseName === databaseName && live(r) && r.createdAt >= since,
        )
        .sort(byCreated)
        .map(copy);
    },
    async latestStarted(userId, databaseName) {
      const r = all()
        .filter((x) => x.userId === userId && x.databaseName === databaseName && live(x))
        .sort((a, b) => byCreated(b, a))[0];
      return r ? copy(r) : null;
    },
    async latestCompleted(userId, databaseName) {
      const r = all()
        .filter((x) => x.userId === userId && x.databaseName === databaseName && x.status === 'completed')
        .sort((a, b) => byCreated(b, a))[0];
      return r ? copy(r) : null;
    },
    async usersWithFinishedBefore(before) {
      return [
        ...new Set(
          all()
            .filter((r) => finished(r) && r.createdAt < before)
            .map((r) => r.userId),
        ),
      ];
    },
    async claimExpired(userId, before, now, skip, rule) {
      const r = all()
        .filter(
          (x) =>
            x.userId === userId &&
            finished(x) &&
            x.createdAt < before &&
            !lockHolds(x, now) &&
            !skip.includes(x.id),
        )
        .sort(byCreated)[0];
      if (!r) return null;
      rows.set(r.id, {
        ...r,
        status: 'deleting',
        deletingSince: now,
        deleteReason: 'auto',
        deleteRule: rule ?? null,
      });
      return copy(r);
    },
    async claimForRetention(userId, backupId, now, rule) {
      const r = rows.get(backupId);
      if (!r || r.userId !== userId || !finished(r) || lockHolds(r, now)) return null;
      rows.set(r.id, {
        ...r,
        status: 'deleting',
        deletingSince: now,
        deleteReason: 'auto',
        deleteRule: rule,
      });
      return copy(r);
    },
    async reclaimStaleDeletion(staleBefore, now) {
      const r = all().find(
        (x) => x.status === 'deleting' && x.deletingSince && x.deletingSince < staleBefore,
      );
      if (!r) return null;
      const next = { ...r, deletingSince: now };
      rows.set(r.id, next);
      return copy(next);
    },
    async ofUser(userId) {
      return all()
        .filter((r) => r.userId === userId)
        .map(copy);
    },
    async setCollections(backupId, agentId, collections) {
      const r = rows.get(backupId);
      if (!r || r.agentId !== agentId) return false;
      if (!r.collections) rows.set(backupId, { ...r, collections: copy(collections) });
      return true;
    },
    async stats() {
      const kept = all().filter((r) => r.status !== 'deleting');
      return { totalCount: kept.length, totalSize: kept.reduce((n, r) => n + r.size, 0) };
    },
  };
}

export function fakeRestoreStore(): RestoreStore & { rows: Map<string, RestoreRecord> } {
  const rows = new Map<string, RestoreRecord & Record<string, unknown>>();
  const active = (r: RestoreRecord) => r.status === 'pending' || r.status === 'in-progress';
  const all = () => [...rows.values()];
  return {
    rows,
    ...jobCore(rows),
    async insert(rec) {
      const row = { startedAt: null, completedAt: null, error: null, absentSince: null, ...copy(rec) };
      rows.set(rec.id, row);
      return copy(row);
    },
    async list(userId, limit, before) {
      return all()
        .filter((r) => r.userId === userId && isOlderThan(r, before))
        .sort((a, b) => byCreated(b, a))
        .slice(0, limit)
        .map(copy);
    },
    async activeForBackup(backupId) {
      return all()
        .filter((r) => r.backupId === backupId && active(r))
        .map(copy);
    },
    async activeForDatabase(userId, databaseName) {
      return all()
        .filter((r) => r.userId === userId && r.databaseName === databaseName && active(r))
        .map(copy);
    },
    async removeByUser(userId) {
      for (const r of all()) if (r.userId === userId) rows.delete(r.id);
    },
  };
}

export function fakeAgentStore(): AgentStore & { rows: Map<string, AgentRecord> } {
  const rows = new Map<string, AgentRecord>();
  const all = () => [...rows.values()];
  return {
    rows,
    async register(reg, now) {
      const existing = all().find((a) => a.userId === reg.userId && a.instanceId === reg.instanceId);
      const base = existing ?? { id: hexId(), createdAt: now };
      const next: AgentRecord = {
        ...base,
        ...copy(reg),
        connected: true,
        lastSeen: now,
        disconnectedAt: null,
        offlineReason: null,
        retired: false,
      } as AgentRecord;
      rows.set(next.id, next);
      return { agent: copy(next), isNew: !existing || existing.retired };
    },
    async get(agentId) {
      const a = rows.get(agentId);
      return a ? copy(a) : null;
    },
    async findInstance(userId, instanceId) {
      const a = all().find((r) => r.userId === userId && r.instanceId === instanceId);
      return a ? copy(a) : null;
    },
    async list(userId) {
      return all()
        .filter((a) => a.userId === userId && !a.retired)
        .sort(byCreated)
        .map(copy);
    },
    async heartbeat(userId, agentId, now, databases) {
      const a = rows.get(agentId);
      if (!a || a.userId !== userId || a.retired) return null;
      const next = {
        ...a,
        lastSeen: now,
        connected: true,
        disconnectedAt: null,
        offlineReason: null,
        ...(databases ? { databases: [...databases] } : {}),
      };
      rows.set(agentId, next);
      return copy(next);
    },
    async disconnect(userId, agentId, now, reason) {
      const a = rows.get(agentId);
      if (!a || a.userId !== userId || !a.connected || a.retired) return null;
      rows.set(agentId, { ...a, connected: false, disconnectedAt: now, offlineReason: reason ?? null });
      return copy(a);
    },
    async retire(userId, agentId) {
      const a = rows.get(agentId);
      if (!a || a.userId !== userId || a.retired) return null;
      const next = { ...a, retired: true };
      rows.set(agentId, next);
      return copy(next);
    },
    async remove(agentId, userId) {
      const a = rows.get(agentId);
      if (!a || (userId && a.userId !== userId)) return false;
      return rows.delete(agentId);
    },
    async removeByUser(userId) {
      for (const a of all()) if (a.userId === userId) rows.delete(a.id);
    },
  };
}

export function fakeDatabaseStore(): DatabaseStore & { rows: Map<string, DatabaseRecord> } {
  const rows = new Map<string, DatabaseRecord>();
  const all = () => [...rows.values()];
  const find = (userId: string, name: string) => all().find((d) => d.userId === userId && d.name === name);
  return {
    rows,
    async ensure(userId, names, now) {
      for (const name of names) {
        if (find(userId, name)) continue;
        const id = hexId();
        rows.set(id, {
          id,
          userId,
          name,
          enabled: true,
          createdAt: now,
          lastScheduledSlot: null,
          ...dueFields(now),
        });
      }
    },
    async list(userId) {
      return all()
        .filter((d) => d.userId === userId)
        .sort(byCreated)
        .map(copy);
    },
    async get(userId, databaseId) {
      const d = rows.get(databaseId);
      return d && d.userId === userId ? copy(d) : null;
    },
    async byName(userId, name) {
      const d = find(userId, name);
      return d ? copy(d) : null;
    },
    async setEnabled(userId, databaseId, enabled) {
      const d = rows.get(databaseId);
      if (!d || d.userId !== userId) return false;
      rows.set(databaseId, { ...d, enabled });
      return true;
    },
    async setVerify(userId, databaseId, verify) {
      const d = rows.get(databaseId);
      if (!d || d.userId !== userId) return false;
      rows.set(databaseId, { ...d, verify });
      return true;
    },
    async enabled() {
      return all()
        .filter((d) => d.enabled)
        .sort(byCreated)
        .map(copy);
    },
    async markScheduled(userId, name, slotKey, nextDueAt) {
      const d = find(userId, name);
      if (d) rows.set(d.id, { ...d, lastScheduledSlot: slotKey, ...dueFields(nextDueAt) });
    },
    async dueIn(bucket, afterId, limit) {
      return all()
        .filter((d) => d.dueBucket === bucket && (!afterId || d.id > afterId))
        .sort((a, b) => a.id.localeCompare(b.id))
        .slice(0, limit)
        .map(copy);
    },
    async setDue(userId, name, at) {
      const d = find(userId, name);
      if (d) rows.set(d.id, { ...d, ...dueFields(at) });
    },
    async dueAllOf(userId, at) {
      for (const d of all()) if (d.userId === userId) rows.set(d.id, { ...d, ...dueFields(at) });
    },
    async wakeParked(userId, at) {
      for (const d of all()) if (d.userId === userId && !d.dueAt) rows.set(d.id, { ...d, ...dueFields(at) });
    },
    async catchUpDue(now) {
      for (const d of all()) {
        const overdue = !!d.dueAt && d.dueAt <= now && (d.dueBucket ?? 0) < dueBucket(now);
        if (d.dueBucket === undefined || overdue) rows.set(d.id, { ...d, ...dueFields(now) });
      }
    },
    async removeByUser(userId) {
      for (const d of all()) if (d.userId === userId) rows.delete(d.id);
    },
  };
}

export function fakeSettingsStore(): SettingsStore & {
  rows: Map<string, SettingsRecord>;
  locks: Map<string, RetentionLockRecord>;
} {
  const rows = new Map<string, SettingsRecord>();
  const locks = new Map<string, RetentionLockRecord>();
  const sameLock = (a: RetentionLockRecord, b: RetentionLockRecord) =>
    a.enabled === b.enabled && (a.offAt?.getTime() ?? null) === (b.offAt?.getTime() ?? null);
  return {
    rows,
    locks,
    async lock(userId) {
      if (!rows.has(userId)) return null;
      return { ...(locks.get(userId) ?? { enabled: false, offAt: null }) };
    },
    async saveLock(userId, next, expected, defaults) {
      const current = rows.has(userId) ? (locks.get(userId) ?? { enabled: false, offAt: null }) : null;
      if (expected && (!current || !sameLock(current, expected))) return false;
      if (!rows.has(userId)) rows.set(userId, { ...defaults });
      locks.set(userId, { ...next });
      return true;
    },
    async lockTurnOffsDue(now) {
      return [...locks]
        .filter(([, l]) => l.enabled && l.offAt && l.offAt <= now)
        .map(([userId, l]) => ({ userId, offAt: l.offAt! }));
    },
    async get(userId) {
      const s = rows.get(userId);
      return s ? { ...s } : null;
    },
    async all() {
      return new Map([...rows].map(([k, v]) => [k, { ...v }]));
    },
    async save(userId, patch, defaults) {
      const before = rows.get(userId) ?? null;
      const after = {
        ...(before ?? defaults),
        ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
      };
      rows.set(userId, after);
      return { before: before && { ...before }, after: { ...after } };
    },
    async remove(userId) {
      rows.delete(userId);
      locks.delete(userId);
    },
    async gfsUsers() {
      return [...rows].filter(([, s]) => s.retentionMode === 'gfs').map(([userId]) => userId);
    },
  };
}

export function fakeLeaseStore(): LeaseStore & { held: Map<string, { holder: string; expiresAt: Date }> } {
  const held = new Map<string, { holder: string; expiresAt: Date }>();
  return {
    held,
    async acquire(key, holder, now, until) {
      const lease = held.get(key);
      if (lease && lease.expiresAt > now) return false;
      held.set(key, { holder, expiresAt: until });
      return true;
    },
    async release(key, holder) {
      if (held.get(key)?.holder === holder) held.delete(key);
    },
  };
}

export function fakeVerificationStore(): VerificationStore & { rows: Map<string, VerificationRecord> } {
  const rows = new Map<string, VerificationRecord & Record<string, unknown>>();
  const all = () => [...rows.values()];
  const newestFirst = () => all().sort((a, b) => byCreated(b, a));
  const active = (r: VerificationRecord) => r.status === 'pending' || r.status === 'in-progress';
  return {
    rows,
    ...jobCore(rows),
    async insert(rec) {
      const row = {
        startedAt: null,
        completedAt: null,
        error: null,
        absentSince: null,
        checked: null,
        difference: null,
        ...copy(rec),
      };
      rows.set(rec.id, row);
      return copy(row);
    },
    async latestOf(backupIds) {
      const out = new Map<string, VerificationRecord>();
      for (const r of newestFirst())
        if (backupIds.includes(r.backupId) && !out.has(r.backupId)) out.set(r.backupId, copy(r));
      return out;
    },
    async latestForDatabase(userId, databaseName) {
      const r = newestFirst().find((v) => v.userId === userId && v.databaseName === databaseName);
      return r ? copy(r) : null;
    },
    async activeForDatabase(userId, databaseName) {
      return all()
        .filter((r) => r.userId === userId && r.databaseName === databaseName && active(r))
        .map(copy);
    },
    async verifiedBackupIds(userId) {
      return new Set(
        all()
          .filter((r) => r.userId === userId && r.status === 'completed')
          .map((r) => r.backupId),
      );
    },
    async removeByUser(userId) {
      for (const r of all()) if (r.userId === userId) rows.delete(r.id);
    },
  };
}

export function fakeRetentionDueStore(): RetentionDueStore & { rows: Map<string, RetentionDueRecord> } {
  const rows = new Map<string, RetentionDueRecord>();
  return {
    rows,
    async mark(userId, at) {
      rows.set(userId, { userId, ...dueFields(at) });
    },
    async markMissing(userIds, at) {
      for (const userId of userIds) if (!rows.has(userId)) rows.set(userId, { userId, ...dueFields(at) });
    },
    async dueIn(bucket, afterUserId, limit) {
      return [...rows.values()]
        .filter((r) => r.dueBucket === bucket && (!afterUserId || r.userId > afterUserId))
        .sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0))
        .slice(0, limit)
        .map(copy);
    },
    async catchUpDue(now) {
      for (const r of rows.values())
        if (r.dueAt && r.dueAt <= now && (r.dueBucket ?? 0) < dueBucket(now))
          rows.set(r.userId, { userId: r.userId, ...dueFields(now) });
    },
    async remove(userId) {
      rows.delete(userId);
    },
    async migrated() {
      return rows.has(MIGRATED);
    },
    async setMigrated() {
      rows.set(MIGRATED, { userId: MIGRATED, dueAt: null, dueBucket: null });
    },
  };
}

export type FakeStores = {
  leases: ReturnType<typeof fakeLeaseStore>;
  agents: ReturnType<typeof fakeAgentStore>;
  databases: ReturnType<typeof fakeDatabaseStore>;
  backups: ReturnType<typeof fakeBackupStore>;
  restores: ReturnType<typeof fakeRestoreStore>;
  verifications: ReturnType<typeof fakeVerificationStore>;
  settings: ReturnType<typeof fakeSettingsStore>;
  retentionDue: ReturnType<typeof fakeRetentionDueStore>;
} & Stores;

export function fakeStores(): FakeStores {
  return {
    leases: fakeLeaseStore(),
    agents: fakeAgentStore(),
    databases: fakeDatabaseStore(),
    backups: fakeBackupStore(),
    restores: fakeRestoreStore(),
    verifications: fakeVerificationStore(),
    settings: fakeSettingsStore(),
    retentionDue: fakeRetentionDueStore(),
  };
}
