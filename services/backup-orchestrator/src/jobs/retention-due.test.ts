// The retention sweep visits only the accounts that are due (jobs/due-visitor.ts): these pin which
// accounts a pass reads, not only what it deletes, so a sweep that went back to reading every
// account fails here.
import { OTHER_USER, USER, testWorld, type TestWorld } from '../test-world';
import { retention } from './retention';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function completedBackup(w: TestWorld, agentId: string, userId: string) {
  const b = await w.backups.trigger(userId, 'shop');
  await w.backups.delivery({ userId, agentId, commandId: b.commandId, jobId: b.id, delivered: true });
  await w.backups.complete({ userId, agentId, backupId: b.id, size: 10, keyFingerprint: 'fp' });
  return b.id;
}

/** One backup a day for `days` days for each of two accounts (the default 3-day retention). */
async function twoAccounts(days: number) {
  const w = testWorld({ plan: { frequencyLimit: 24, retentionLimit: 4320 } });
  w.clock.set('2025-06-01T00:00:00Z');
  const agents: Record<string, string> = {
    [USER]: await w.connectAgent(['shop'], USER, 'inst-a'),
    [OTHER_USER]: await w.connectAgent(['shop'], OTHER_USER, 'inst-b'),
  };
  const ids: Record<string, string[]> = { [USER]: [], [OTHER_USER]: [] };
  for (let d = 0; d < days; d++) {
    if (d) w.clock.advance(DAY);
    for (const [userId, agentId] of Object.entries(agents)) {
      await w.beat(agentId, [], userId);
      ids[userId]!.push(await completedBackup(w, agentId, userId));
    }
  }
  /** Which accounts a pass claimed backups of. */
  const claims = jest.spyOn(w.stores.backups, 'claimExpired');
  const sweep = async () => {
    claims.mockClear();
    const deleted = await w.retention.tick();
    return { deleted, read: [...new Set(claims.mock.calls.map(([userId]) => userId))].sort() };
  };
  return { w, agents, ids, sweep };
}

describe('the retention sweep visits only what is due', () => {
  it('reads no account before one of its backups may go, then prunes exactly those', async () => {
    const { w, ids, sweep } = await twoAccounts(2); // backups at day 0 and day 1
    // Both accounts had a backup finish: each gets one pass, which files the next at its oldest's expiry.
    await expect(sweep()).resolves.toEqual({ deleted: 0, read: [OTHER_USER, USER].sort() });
    expect(w.stores.retentionDue.rows.get(USER)!.dueAt).toEqual(new Date('2025-06-04T00:00:00Z'));
    await expect(sweep()).resolves.toEqual({ deleted: 0, read: [] });
    w.clock.set('2025-06-03T12:00:00Z');
    await expect(sweep()).resolves.toEqual({ deleted: 0, read: [] });

    // Day 3 and a minute: both accounts' day-0 backups are older than 3 days.
    w.clock.set('2025-06-04T00:01:00Z');
    await expect(sweep()).resolves.toEqual({ deleted: 2, read: [OTHER_USER, USER].sort() });
    expect(w.stores.backups.rows.has(ids[USER]![0]!)).toBe(false);
    expect(w.stores.backups.rows.has(ids[USER]![1]!)).toBe(true);
    // A longer retention for one account: a pass at once (it deletes nothing), then its next one later.
    await w.settings.update(OTHER_USER, { retention: 168 });
    await expect(sweep()).resolves.toEqual({ deleted: 0, read: [OTHER_USER] });
    w.clock.set('2025-06-05T00:01:00Z');
    await expect(sweep()).resolves.toEqual({ deleted: 1, read: [USER] });
    expect(w.stores.backups.rows.has(ids[OTHER_USER]![1]!)).toBe(true);
    // Nothing finished left: parked until a backup finishes.
    expect(w.stores.retentionDue.rows.get(USER)).toMatchObject({ dueAt: null, dueBucket: null });
    w.clock.set('2025-06-09T00:01:00Z');
    await expect(sweep()).resolves.toEqual({ deleted: 1, read: [OTHER_USER] });
  });

  it('prunes accounts whose backups predate the due records on its first pass (a restart)', async () => {
    const { w, ids, sweep } = await twoAccounts(6); // days 0..5: days 0 and 1 are past 3 days
    w.stores.retentionDue.rows.clear();
    await expect(sweep()).resolves.toEqual({ deleted: 2 * 2, read: [OTHER_USER, USER].sort() });
    expect([...w.stores.backups.rows.keys()].filter((id) => ids[USER]!.includes(id))).toEqual(
      ids[USER]!.slice(2),
    );
  });

  it('reads every backup for that once, not at every restart', async () => {
    const { w, sweep } = await twoAccounts(1);
    const scan = jest.spyOn(w.stores.backups, 'usersWithFinishedBefore');
    await sweep();
    expect(scan).toHaveBeenCalledTimes(1);
    const restarted = retention({
      stores: w.stores,
      backups: w.backups,
      policyOf: async () => ({ hours: 72, gfs: null }),
      now: w.now,
      log: { info() {}, warn() {} },
    });
    await restarted.tick();
    expect(scan).toHaveBeenCalledTimes(1);
  });

  it('under GFS, a backup that finishes files the account, and the one it pushes out goes', async () => {
    const { w, agents, ids, sweep } = await twoAccounts(1);
    await w.settings.update(USER, {
      retentionMode: 'gfs',
      gfs: { hourly: 0, daily: 2, weekly: 0, monthly: 0, yearly: 0 },
    });
    const gfsPass = jest.spyOn(w.stores.backups, 'ofUser');
    await sweep();
    gfsPass.mockClear();
    w.clock.advance(DAY);
    await w.beat(agents[USER]!, [], USER);
    await completedBackup(w, agents[USER]!, USER);
    await w.retention.tick();
    expect(w.stores.backups.rows.has(ids[USER]![0]!)).toBe(true); // two days kept
    w.clock.advance(DAY);
    await w.beat(agents[USER]!, [], USER);
    await completedBackup(w, agents[USER]!, USER);
    gfsPass.mockClear();
    await expect(w.retention.tick()).resolves.toBe(1);
    expect(w.stores.backups.rows.has(ids[USER]![0]!)).toBe(false);
    // Only the account whose backup finished was read.
    expect(new Set(gfsPass.mock.calls.map(([userId]) => userId))).toEqual(new Set([USER]));
  });
});
