// One set of cases for both store implementations: the in-memory fakes the unit tests use and the
// mongoose stores on a real FerretDB. A case that passes for one and fails for the other means a
// unit test somewhere proves less than it claims.
import { isDuplicateKeyError } from '@coffer/common';
import { ferretDbPerCase } from '@coffer/common/testing';
import { OTHER_USER_ID as OTHER, TEST_USER_ID as USER } from '@coffer/local-stack';
import { dueBucket } from '../domain/due-bucket';
import { orchestratorModels } from '../model';
import { agentRegistration } from '../test-world';
import { fakeStores } from './fake';
import { mongoStores } from './index';
import type { BackupRecord, NewBackup, NewRestore, Stores } from './types';

const ferretDb = ferretDbPerCase('orchestrator_contract');

async function onFerretDb(): Promise<Stores> {
  const db = ferretDb.fresh();
  const models = orchestratorModels(db);
  await Promise.all(Object.values(models).map((m) => m.init()));
  return mongoStores(models);
}

const t0 = new Date('2025-06-01T00:00:00Z');
const hours = (h: number) => new Date(t0.getTime() + h * 3_600_000);
const ids = (...letters: string[]) => letters.map((x) => x.repeat(24));
const reg = (instanceId = 'i1', userId = USER) => agentRegistration({ instanceId, userId });

function newBackup(id: string, h: number, status: BackupRecord['status'], extra: Partial<NewBackup> = {}) {
  return {
    id,
    userId: USER,
    databaseName: 'shop',
    agentId: 'agent-1',
    type: 'manual',
    status,
    size: 100,
    keyFingerprint: null,
    createdAt: hours(h),
    commandId: `c-${id}`,
    commandSentAt: hours(h),
    scheduleSlot: `manual:${id}`,
    deleteReason: null,
    deletingSince: null,
    ...extra,
  } satisfies NewBackup;
}

function newRestore(id: string, h: number, extra: Partial<NewRestore> = {}): NewRestore {
  return {
    id,
    userId: USER,
    backupId: 'f'.repeat(24),
    databaseName: 'shop',
    agentId: 'agent-1',
    status: 'pending',
    createdAt: hours(h),
    commandId: `c-${id}`,
    commandSentAt: hours(h),
    documentsRestored: 0,
    documentsFailed: 0,
    ...extra,
  };
}

describe.each([
  ['in-memory fakes', async () => fakeStores() as Stores],
  ['mongoose on FerretDB', onFerretDb],
])('orchestrator stores: %s', (_name, make) => {
  let stores: Stores;
  beforeEach(async () => {
    stores = await make();
  });

  describe('leases', () => {
    it('has one holder at a time; freed by its holder, or taken over once expired', async () => {
      const takes = await Promise.all(
        ['a', 'b', 'c', 'd'].map((h) => stores.leases.acquire('register:u1', h, hours(0), hours(1))),
      );
      expect(takes.filter(Boolean)).toHaveLength(1);
      const holder = ['a', 'b', 'c', 'd'][takes.indexOf(true)]!;
      // Another key is another lease.
      expect(await stores.leases.acquire('register:u2', 'x', hours(0), hours(1))).toBe(true);
      // Only its holder gives it back.
      await stores.leases.release('register:u1', 'not-the-holder');
      expect(await stores.leases.acquire('register:u1', 'e', hours(0.5), hours(1))).toBe(false);
      await stores.leases.release('register:u1', holder);
      expect(await stores.leases.acquire('register:u1', 'e', hours(0.5), hours(2))).toBe(true);
      // Its holder never gave it back: taken over once expired.
      expect(await stores.leases.acquire('register:u1', 'f', hours(1.5), hours(3))).toBe(false);
      expect(await stores.leases.acquire('register:u1', 'f', hours(2), hours(3))).toBe(true);
      // The one that lost it cannot release the new holder's.
      await stores.leases.release('register:u1', 'e');
      expect(await stores.leases.acquire('register:u1', 'g', hours(2.5), hours(3))).toBe(false);
    });
  });

  describe('agents', () => {
    it('upsert by instance: new once, new again after a reset, hidden while retired', async () => {
      const first = await stores.agents.register(reg(), t0);
      expect(first).toMatchObject({ isNew: true, agent: { connected: true, retired: false, createdAt: t0 } });
      const again = await stores.agents.register({ ...reg(), version: '1.1.0' }, hours(1));
      expect(again).toMatchObject({ isNew: false, agent: { id: first.agent.id, version: '1.1.0' } });
      expect(again.agent.createdAt).toEqual(t0);
      expect(await stores.agents.retire(USER, first.agent.id)).toMatchObject({ retired: true });
      expect(await stores.agents.retire(USER, first.agent.id)).toBeNull();
      expect(await stores.agents.list(USER)).toEqual([]);
      expect(await stores.agents.findInstance(USER, 'i1')).toMatchObject({ retired: true });
      expect((await stores.agents.register(reg(), hours(2))).isNew).toBe(true);
    });

    it('given the record it just read, updates that instance in place', async () => {
      const first = (await stores.agents.register(reg(), t0)).agent;
      await stores.agents.disconnect(USER, first.id, hours(1));
      const known = await stores.agents.findInstance(USER, 'i1');
      const again = await stores.agents.register({ ...reg(), version: '2.0.0' }, hours(2), known);
      expect(again).toMatchObject({
        isNew: false,
        agent: { id: first.id, version: '2.0.0', connected: true, disconnectedAt: null, createdAt: t0 },
      });
      expect(again.agent.lastSeen).toEqual(hours(2));
      expect(await stores.agents.list(USER)).toHaveLength(1);
      // A record that vanished meanwhile (the agent was removed): registered anew.
      await stores.agents.remove(first.id, USER);
      const back = await stores.agents.register(reg(), hours(3), known);
      expect(back.isNew).toBe(true);
      expect(await stores.agents.findInstance(USER, 'i1')).toMatchObject({ id: back.agent.id });
    });

    it('heartbeats and disconnects only the owner’s live agent; lists oldest first', async () => {
      const a = (await stores.agents.register(reg('i1'), t0)).agent;
      const b = (await stores.agents.register(reg('i2'), hours(1))).agent;
      await stores.agents.register(reg('i3', OTHER), hours(2));
      expect((await stores.agents.list(USER)).map((x) => x.id)).toEqual([a.id, b.id]);

      expect(await stores.agents.heartbeat(OTHER, a.id, hours(3))).toBeNull();
      expect(await stores.agents.heartbeat(USER, a.id, hours(3), ['shop', 'crm'])).toMatchObject({
        lastSeen: hours(3),
        databases: ['shop', 'crm'],
      });
      expect(await stores.agents.disconnect(USER, a.id, hours(4))).toMatchObject({ connected: true });
      expect(await stores.agents.disconnect(USER, a.id, hours(4))).toBeNull();
      expect(await stores.agents.get(a.id)).toMatchObject({ connected: false, disconnectedAt: hours(4) });
      // The others stay connected.
      const stillConnected = [...(await stores.agents.list(USER)), ...(await stores.agents.list(OTHER))]
        .filter((x) => x.connected)
        .map((x) => x.instanceId);
      expect(stillConnected.sort()).toEqual(['i2', 'i3']);
      expect(await stores.agents.heartbeat(USER, a.id, hours(5))).toMatchObject({
        connected: true,
        disconnectedAt: null,
      });
      // Why it went offline, when known, is kept until it connects again.
      expect((await stores.agents.get(a.id))!.offlineReason).toBeNull();
      await stores.agents.disconnect(USER, a.id, hours(6), 'api-key-replaced');
      expect(await stores.agents.get(a.id)).toMatchObject({ offlineReason: 'api-key-replaced' });
      await stores.agents.register(reg('i1'), hours(7), await stores.agents.get(a.id));
      expect(await stores.agents.get(a.id)).toMatchObject({ connected: true, offlineReason: null });
    });

    it('removes one agent (of its owner only) or all of a user', async () => {
      const a = (await stores.agents.register(reg('i1'), t0)).agent;
      await stores.agents.register(reg('i2'), t0);
      expect(await stores.agents.remove(a.id, OTHER)).toBe(false);
      expect(await stores.agents.remove(a.id, USER)).toBe(true);
      expect(await stores.agents.remove(a.id)).toBe(false);
      expect(await stores.agents.get('not-an-id')).toBeNull();
      await stores.agents.removeByUser(USER);
      expect(await stores.agents.list(USER)).toEqual([]);
    });
  });

  describe('databases', () => {
    it('adds only the names the user lacks, lists them oldest first, scoped to the user', async () => {
      await stores.databases.ensure(USER, ['shop'], t0);
      await stores.databases.ensure(USER, ['shop', 'crm'], hours(1));
      await stores.databases.ensure(OTHER, ['shop'], hours(2));
      const list = await stores.databases.list(USER);
      expect(list.map((d) => [d.name, d.createdAt, d.enabled, d.lastScheduledSlot])).toEqual([
        ['shop', t0, true, null],
        ['crm', hours(1), true, null],
      ]);
      const shop = list[0]!;
      expect(await stores.databases.get(OTHER, shop.id)).toBeNull();
      expect(await stores.databases.byName(USER, 'crm')).toMatchObject({ name: 'crm' });
      expect(await stores.databases.setEnabled(OTHER, shop.id, false)).toBe(false);
      expect(await stores.databases.setEnabled(USER, shop.id, false)).toBe(true);
      expect((await stores.databases.enabled()).map((d) => [d.userId, d.name])).toEqual([
        [USER, 'crm'],
        [OTHER, 'shop'],
      ]);
      await stores.databases.markScheduled(USER, 'crm', 'auto:24h:7', hours(24));
      expect(await stores.databases.byName(USER, 'crm')).toMatchObject({
        lastScheduledSlot: 'auto:24h:7',
        dueAt: hours(24),
        dueBucket: dueBucket(hours(24)),
      });
      await stores.databases.removeByUser(USER);
      expect(await stores.databases.list(USER)).toEqual([]);
      expect(await stores.databases.list(OTHER)).toHaveLength(1);
    });

    it('files databases by the minute they are due, answers one minute at a time, paged by id', async () => {
      await stores.databases.ensure(USER, ['a', 'b', 'c'], t0);
      await stores.databases.ensure(OTHER, ['a'], t0);
      const due = async (at: Date, after: string | null = null, limit = 10) =>
        (await stores.databases.dueIn(dueBucket(at), after, limit)).map((d) => [d.userId, d.name]);
      // New databases are due at once (the scheduler decides what comes next).
      expect(await due(t0)).toHaveLength(4);
      await stores.databases.setDue(USER, 'a', hours(1));
      await stores.databases.setDue(USER, 'b', null);
      expect(await due(t0)).toEqual([
        [USER, 'c'],
        [OTHER, 'a'],
      ]);
      expect(await due(hours(1))).toEqual([[USER, 'a']]);
      const [first] = await stores.databases.dueIn(dueBucket(t0), null, 1);
      expect(await due(t0, first!.id)).toEqual([[OTHER, 'a']]);
      // A schedule change makes all of the user's databases due, parked ones included; not another user's.
      await stores.databases.dueAllOf(USER, hours(2));
      expect((await due(hours(2))).sort()).toEqual([
        [USER, 'a'],
        [USER, 'b'],
        [USER, 'c'],
      ]);
      expect(await due(t0)).toEqual([[OTHER, 'a']]);
      // Catch-up: what is overdue in an earlier minute moves to now's; a future or parked one stays.
      await stores.databases.setDue(USER, 'b', null);
      await stores.databases.setDue(USER, 'c', hours(9));
      await stores.databases.catchUpDue(hours(3));
      expect((await due(hours(3))).sort()).toEqual(
        [
          [OTHER, 'a'],
          [USER, 'a'],
        ].sort(),
      );
      expect(await due(hours(9))).toEqual([[USER, 'c']]);
      expect(await stores.databases.byName(USER, 'b')).toMatchObject({ dueAt: null, dueBucket: null });
      // An agent's registration wakes the parked one only.
      await stores.databases.wakeParked(USER, hours(4));
      expect(await due(hours(4))).toEqual([[USER, 'b']]);
      expect(await due(hours(9))).toEqual([[USER, 'c']]);
    });
  });

  describe('retention passes', () => {
    it('files accounts by the minute of their next pass; migration files only the missing ones', async () => {
      const due = async (at: Date) =>
        (await stores.retentionDue.dueIn(dueBucket(at), null, 10)).map((r) => r.userId);
      await stores.retentionDue.mark(USER, hours(5));
      await stores.retentionDue.markMissing([USER, OTHER, OTHER], t0);
      expect(await due(t0)).toEqual([OTHER]);
      expect(await due(hours(5))).toEqual([USER]);
      await stores.retentionDue.mark(OTHER, null);
      expect(await due(t0)).toEqual([]);
      await stores.retentionDue.markMissing([OTHER], t0);
      expect(await due(t0)).toEqual([]);
      await stores.retentionDue.catchUpDue(hours(6));
      expect(await due(hours(6))).toEqual([USER]);
      expect((await stores.retentionDue.dueIn(dueBucket(hours(6)), USER, 10)).length).toBe(0);
      await stores.retentionDue.remove(USER);
      expect(await due(hours(6))).toEqual([]);
      // The one-off filing is recorded once done, and its record is never due.
      expect(await stores.retentionDue.migrated()).toBe(false);
      await stores.retentionDue.setMigrated();
      await stores.retentionDue.setMigrated();
      expect(await stores.retentionDue.migrated()).toBe(true);
      await stores.retentionDue.catchUpDue(hours(7));
      expect(await due(hours(7))).toEqual([]);
    });
  });

  describe('settings', () => {
    it('takes the defaults on insert and answers the values before and after', async () => {
      const defaults = { frequency: 24, retention: 72, retentionMode: 'days', gfs: null } as const;
      expect(await stores.settings.save(USER, { retention: 168 }, defaults)).toEqual({
        before: null,
        after: { ...defaults, retention: 168 },
      });
      expect(await stores.settings.save(USER, { frequency: 1 }, defaults)).toEqual({
        before: { ...defaults, retention: 168 },
        after: { ...defaults, frequency: 1, retention: 168 },
      });
      expect(await stores.settings.get(USER)).toEqual({ ...defaults, frequency: 1, retention: 168 });
      expect(await stores.settings.all()).toEqual(
        new Map([[USER, { ...defaults, frequency: 1, retention: 168 }]]),
      );
      const gfs = { hourly: 0, daily: 7, weekly: 4, monthly: 12, yearly: 1 };
      expect((await stores.settings.save(USER, { retentionMode: 'gfs', gfs }, defaults)).after).toEqual({
        frequency: 1,
        retention: 168,
        retentionMode: 'gfs',
        gfs,
      });
      await stores.settings.save(OTHER, { retention: 168 }, defaults);
      expect(await stores.settings.gfsUsers()).toEqual([USER]);
      // Back to days: the counts stay saved for the next time GFS is chosen.
      await stores.settings.save(USER, { retentionMode: 'days' }, defaults);
      expect(await stores.settings.get(USER)).toMatchObject({ retentionMode: 'days', gfs });
      expect(await stores.settings.gfsUsers()).toEqual([]);
      await stores.settings.remove(USER);
      expect(await stores.settings.get(USER)).toBeNull();
    });

    it('saves the retention lock only from the state the caller read, and finds due turn-offs', async () => {
      const defaults = { frequency: 24, retention: 72, retentionMode: 'days', gfs: null } as const;
      const off = { enabled: false, offAt: null };
      const on = { enabled: true, offAt: null };
      const leaving = { enabled: true, offAt: hours(5) };
      expect(await stores.settings.lock(USER)).toBeNull();
      expect(await stores.settings.saveLock(USER, on, null, defaults)).toBe(true);
      expect(await stores.settings.get(USER)).toEqual(defaults);
      expect(await stores.settings.lock(USER)).toEqual(on);
      expect(await stores.settings.saveLock(USER, leaving, off, defaults)).toBe(false);
      expect(await stores.settings.saveLock(USER, leaving, on, defaults)).toBe(true);
      expect(await stores.settings.lockTurnOffsDue(hours(4))).toEqual([]);
      expect(await stores.settings.lockTurnOffsDue(hours(5))).toEqual([{ userId: USER, offAt: hours(5) }]);
      expect(await stores.settings.saveLock(USER, off, on, defaults)).toBe(false);
      expect(await stores.settings.saveLock(USER, off, leaving, defaults)).toBe(true);
      expect(await stores.settings.lock(USER)).toEqual(off);
      expect(await stores.settings.lockTurnOffsDue(hours(9))).toEqual([]);
      // Settings saved before the lock existed read as off, and a save from 'off' applies to them.
      await stores.settings.save(OTHER, { retention: 168 }, defaults);
      expect(await stores.settings.lock(OTHER)).toEqual(off);
      expect(await stores.settings.saveLock(OTHER, on, off, defaults)).toBe(true);
    });
  });

  describe('backups', () => {
    it('keeps one backup per schedule slot of a database', async () => {
      await stores.backups.insert(newBackup(ids('a')[0]!, 0, 'pending', { scheduleSlot: 'auto:1h:1' }));
      const dup = await stores.backups
        .insert(newBackup(ids('b')[0]!, 0, 'pending', { scheduleSlot: 'auto:1h:1' }))
        .catch((e: unknown) => e);
      expect(isDuplicateKeyError(dup)).toBe(true);
      // The same slot of another database is another backup.
      await stores.backups.insert(
        newBackup(ids('c')[0]!, 0, 'pending', { scheduleSlot: 'auto:1h:1', databaseName: 'crm' }),
      );
      expect(await stores.backups.ofUser(USER)).toHaveLength(2);
    });

    it('moves a job only from the states, owner, agent and command the transition names', async () => {
      const [id] = ids('a') as [string];
      const inserted = await stores.backups.insert(newBackup(id, 0, 'pending'));
      expect(inserted).toMatchObject({ startedAt: null, completedAt: null, error: null, absentSince: null });
      const t = (f: object, set: Partial<BackupRecord>) =>
        stores.backups.transition({ id, status: ['pending'], ...f }, set);
      expect(await t({ userId: OTHER }, { status: 'in-progress' })).toBeNull();
      expect(await t({ agentId: 'agent-2' }, { status: 'in-progress' })).toBeNull();
      expect(await t({ commandId: 'other' }, { status: 'in-progress' })).toBeNull();
      expect(await t({ status: ['in-progress'] }, { status: 'failed' })).toBeNull();
      expect(await stores.backups.transition({ id: 'not-an-id', status: ['pending'] }, {})).toBeNull();
      const started = await t(
        { userId: USER, agentId: 'agent-1', commandId: `c-${id}` },
        { status: 'in-progress', startedAt: hours(1) },
      );
      expect(started).toMatchObject({ id, status: 'in-progress', startedAt: hours(1), size: 100 });
      expect(await stores.backups.get(id)).toEqual(started);
      expect(await t({}, { status: 'failed' })).toBeNull();
    });

    it('finds unconfirmed, running and per-agent jobs', async () => {
      const [a, b, c] = ids('a', 'b', 'c') as [string, string, string];
      await stores.backups.insert(newBackup(a, 0, 'pending'));
      await stores.backups.insert(newBackup(b, 2, 'pending'));
      await stores.backups.insert(newBackup(c, 0, 'in-progress', { agentId: 'agent-2' }));
      expect((await stores.backups.unconfirmed(hours(1))).map((x) => x.id)).toEqual([a]);
      expect((await stores.backups.running()).map((x) => x.id)).toEqual([c]);
      expect(
        (await stores.backups.ofAgent('agent-1', ['pending', 'in-progress'])).map((x) => x.id).sort(),
      ).toEqual([a, b]);
      expect(await stores.backups.ofAgent('agent-2', ['pending'])).toEqual([]);
    });

    it('finds the finished jobs whose outcome event is marked unpublished, and only those', async () => {
      const [a, b, c, d] = ids('a', 'b', 'c', 'd') as [string, string, string, string];
      for (const id of [a, b, c]) await stores.backups.insert(newBackup(id, 0, 'in-progress'));
      await stores.backups.insert(newBackup(d, 0, 'completed')); // its event went out when it ended
      const end = (id: string, status: 'completed' | 'failed') =>
        stores.backups.transition({ id, status: ['in-progress'] }, { status, outcomePending: true });
      await end(a, 'completed');
      await end(b, 'failed');
      await stores.backups.transition({ id: b, status: ['completed', 'failed'] }, { outcomePending: false });
      expect((await stores.backups.outcomeUnpublished()).map((x) => x.id)).toEqual([a]);
      await stores.restores.insert(newRestore(c, 0, { status: 'in-progress' }));
      await stores.restores.transition(
        { id: c, status: ['in-progress'] },
        { status: 'completed', outcomePending: true },
      );
      expect((await stores.restores.outcomeUnpublished()).map((x) => x.id)).toEqual([c]);
    });

    it('answers the queries of the scheduler, retention and the lists', async () => {
      const [a, b, c, d] = ids('a', 'b', 'c', 'd') as [string, string, string, string];
      await stores.backups.insert(newBackup(a, 0, 'completed'));
      await stores.backups.insert(newBackup(b, 1, 'failed'));
      await stores.backups.insert(newBackup(c, 2, 'completed'));
      await stores.backups.insert(newBackup(d, 3, 'in-progress'));
      expect((await stores.backups.startedSince(USER, 'shop', hours(1))).map((x) => x.id)).toEqual([c, d]);
      expect((await stores.backups.latestStarted(USER, 'shop'))!.id).toBe(d);
      expect(await stores.backups.latestStarted(USER, 'crm')).toBeNull();
      expect(await stores.backups.usersWithFinishedBefore(hours(10))).toEqual([USER]);
      expect(await stores.backups.usersWithFinishedBefore(t0)).toEqual([]);

      // A backup under the retention lock is not claimed before its date, failed or not.
      const [l, f] = ids('e', 'f') as [string, string];
      await stores.backups.insert(newBackup(l, -2, 'completed', { lockedUntil: hours(20) }));
      await stores.backups.insert(newBackup(f, -1, 'failed', { lockedUntil: hours(20) }));
      expect((await stores.backups.claimExpired(USER, hours(10), hours(10), []))!.id).toBe(a);
      await stores.backups.remove(f);
      await stores.backups.transition({ id: a, status: ['deleting'] }, { status: 'completed' });
      expect((await stores.backups.get(l))!.lockedUntil).toEqual(hours(20));

      // Claims go oldest first, skip what the caller names, and hide the backup from the lists.
      expect(await stores.backups.claimExpired(USER, hours(10), hours(10), [])).toMatchObject({
        id: a,
        status: 'completed',
      });
      expect(await stores.backups.get(a)).toMatchObject({
        status: 'deleting',
        deletingSince: hours(10),
        deleteReason: 'auto',
      });
      expect((await stores.backups.claimExpired(USER, hours(10), hours(10), [b]))!.id).toBe(c);
      expect(await stores.backups.claimExpired(USER, hours(10), hours(10), [b])).toBeNull();
      expect(await stores.backups.reclaimStaleDeletion(hours(10), hours(11))).toBeNull();
      expect(await stores.backups.reclaimStaleDeletion(hours(11), hours(12))).toMatchObject({
        status: 'deleting',
        deletingSince: hours(12),
      });
      expect((await stores.backups.list(USER, 10)).map((x) => x.id)).toEqual([d, b, l]);
      expect((await stores.backups.list(USER, 1)).map((x) => x.id)).toEqual([d]);
      expect(await stores.backups.stats()).toEqual({ totalCount: 3, totalSize: 300 });
      expect(await stores.backups.claimExpired(USER, hours(30), hours(19), [b])).toBeNull();
      expect((await stores.backups.claimExpired(USER, hours(30), hours(20), [b]))!.id).toBe(l);

      expect(await stores.backups.remove(a)).toBe(true);
      expect(await stores.backups.remove(a)).toBe(false);
      expect(await stores.backups.get(a)).toBeNull();
    });

    it('claims a backup for a retention rule only when finished, the owner matches and no lock holds', async () => {
      const [a, b, l, p] = ids('a', 'b', 'c', 'd') as [string, string, string, string];
      await stores.backups.insert(newBackup(a, 0, 'completed'));
      await stores.backups.insert(newBackup(b, 1, 'failed'));
      await stores.backups.insert(newBackup(l, 2, 'completed', { lockedUntil: hours(20) }));
      await stores.backups.insert(newBackup(p, 3, 'in-progress'));
      const rule = 'GFS retention (keep 1 daily)';
      expect(await stores.backups.claimForRetention(OTHER, a, hours(10), rule)).toBeNull();
      expect(await stores.backups.claimForRetention(USER, p, hours(10), rule)).toBeNull();
      expect(await stores.backups.claimForRetention(USER, l, hours(10), rule)).toBeNull();
      expect(await stores.backups.claimForRetention(USER, a, hours(10), rule)).toMatchObject({
        id: a,
        status: 'completed',
      });
      expect(await stores.backups.get(a)).toMatchObject({
        status: 'deleting',
        deleteReason: 'auto',
        deleteRule: rule,
      });
      // Claimed once: a second replica's claim finds nothing.
      expect(await stores.backups.claimForRetention(USER, a, hours(10), rule)).toBeNull();
      expect((await stores.backups.claimForRetention(USER, b, hours(10), rule))!.status).toBe('failed');
      expect((await stores.backups.claimForRetention(USER, l, hours(20), rule))!.id).toBe(l);
    });
  });

  describe('paging', () => {
    it('pages backups and restores newest first from a cursor, ties on createdAt broken by id, other users apart', async () => {
      // e and b share a createdAt: the id orders them, and a page boundary between them loses neither.
      const rows: [string, number][] = [
        ['a', 0],
        ['b', 2],
        ['c', 1],
        ['d', 3],
        ['e', 2],
      ];
      for (const [x, h] of rows) {
        await stores.backups.insert(newBackup(x.repeat(24), h, 'completed'));
        await stores.restores.insert(newRestore(x.repeat(24), h));
      }
      await stores.backups.insert(newBackup('9'.repeat(24), 5, 'completed', { userId: OTHER }));
      await stores.restores.insert(newRestore('9'.repeat(24), 5, { userId: OTHER }));
      for (const list of [stores.backups.list, stores.restores.list]) {
        const seen: string[] = [];
        let before: { createdAt: Date; id: string } | undefined;
        for (;;) {
          const page = await list(USER, 2, before);
          if (!page.length) break;
          seen.push(...page.map((x) => x.id[0]!));
          const last = page[page.length - 1]!;
          before = { createdAt: last.createdAt, id: last.id };
        }
        expect(seen.join('')).toBe('debca');
      }
    });
  });

  describe('restores', () => {
    it('lists newest first and finds the active ones by backup and by database', async () => {
      const [a, b, c] = ids('a', 'b', 'c') as [string, string, string];
      await stores.restores.insert(newRestore(a, 0, { status: 'completed', backupTimestamp: hours(-1) }));
      await stores.restores.insert(newRestore(b, 1));
      await stores.restores.insert(newRestore(c, 2, { status: 'in-progress', databaseName: 'crm' }));
      expect((await stores.restores.list(USER, 10)).map((x) => x.id)).toEqual([c, b, a]);
      expect((await stores.restores.list(USER, 10)).map((x) => x.backupTimestamp ?? null)).toEqual([
        null,
        null,
        hours(-1),
      ]);
      expect((await stores.restores.activeForBackup('f'.repeat(24))).map((x) => x.id).sort()).toEqual([b, c]);
      expect((await stores.restores.activeForDatabase(USER, 'shop')).map((x) => x.id)).toEqual([b]);
      expect(
        await stores.restores.transition({ id: b, status: ['pending'] }, { status: 'in-progress' }),
      ).toMatchObject({ status: 'in-progress', documentsRestored: 0 });
      await stores.restores.removeByUser(USER);
      expect(await stores.restores.list(USER, 10)).toEqual([]);
    });
  });
});
