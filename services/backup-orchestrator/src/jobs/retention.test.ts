import { OTHER_USER, USER, testWorld, type TestWorld } from '../test-world';
import { DELETION_LEASE_MS, effectiveRetentionHours } from './retention';

const HOUR = 3_600_000;

/** A completed backup of 'shop' taken `hoursAgo` before the world's clock. */
async function backupAt(w: TestWorld, agentId: string, userId = USER) {
  const b = await w.backups.trigger(userId, 'shop');
  await w.backups.delivery({ userId, agentId, commandId: b.commandId, jobId: b.id, delivered: true });
  await w.backups.complete({ userId, agentId, backupId: b.id, size: 10, keyFingerprint: 'fp' });
  return b.id;
}

/** Backups every 24 h for `days` days, ending now. */
async function history(days: number, plan = {}) {
  const w = testWorld({ plan: { frequencyLimit: 24, retentionLimit: 4320, ...plan } });
  w.clock.set('2025-06-01T00:00:00Z');
  const agentId = await w.connectAgent(['shop']);
  const ids: string[] = [];
  for (let d = 0; d < days; d++) {
    if (d) {
      w.clock.advance(24 * HOUR);
      await w.beat(agentId);
    }
    ids.push(await backupAt(w, agentId));
  }
  return { w, agentId, ids };
}

describe('effective retention', () => {
  it("is the user's choice bounded by the plan, never under 3 days", () => {
    expect(effectiveRetentionHours(720, 168)).toBe(168);
    expect(effectiveRetentionHours(168, 720)).toBe(168);
    expect(effectiveRetentionHours(720, undefined)).toBe(720);
    expect(effectiveRetentionHours(72, 24)).toBe(72);
  });
});

describe('retention', () => {
  it('deletes backups older than the default 3 days, oldest first, as automatic deletions', async () => {
    const { w, ids } = await history(6); // days 0..5; now = day 5
    await expect(w.retention.tick()).resolves.toBe(2); // days 0 and 1 are older than 72 h; day 2 is exactly 72 h
    expect(w.blobs.deleted).toEqual([ids[0], ids[1]]);
    expect([...w.stores.backups.rows.keys()]).toEqual(ids.slice(2));
    expect(w.events.of('backup.backup.deleted').map((e) => [e.data.backupId, e.data.type, e.id])).toEqual([
      [ids[0], 'auto', `${ids[0]}:deleted`],
      [ids[1], 'auto', `${ids[1]}:deleted`],
    ]);
    await expect(w.retention.tick()).resolves.toBe(0);
  });

  it("keeps backups for the user's saved retention, capped by the plan", async () => {
    const { w } = await history(10, { retentionLimit: 168 });
    await w.settings.update(USER, { retention: 168 });
    await expect(w.retention.tick()).resolves.toBe(2); // days 0, 1 are older than 7 days
    w.plan.retentionLimit = 4320;
    await w.settings.update(USER, { retention: 720 });
    w.plan.retentionLimit = 72; // downgraded: the plan wins over the saved 30 days
    await expect(w.retention.tick()).resolves.toBe(4);
  });

  it('deletes failed backups too, and leaves running ones alone', async () => {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    const failed = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({
      userId: USER,
      agentId,
      commandId: failed.commandId,
      jobId: failed.id,
      delivered: false,
    });
    const stuck = await w.backups.trigger(USER, 'shop');
    w.clock.advance(100 * HOUR);
    await expect(w.retention.tick()).resolves.toBe(1);
    expect(w.stores.backups.rows.has(failed.id)).toBe(false);
    expect(w.stores.backups.rows.get(stuck.id)!.status).toBe('pending');
  });

  it('skips a backup that is being restored until the restore ends', async () => {
    const { w, agentId, ids } = await history(6); // days 0 and 1 have expired
    await w.restores.request({ userId: USER, backupId: ids[0]!, databaseName: 'shop' });
    await expect(w.retention.tick()).resolves.toBe(1);
    expect(w.stores.backups.rows.get(ids[0]!)).toMatchObject({ status: 'completed', deleteReason: null });
    const [r] = await w.restores.list(USER);
    await w.restores.fail({ userId: USER, agentId, restoreId: r!.id, error: 'x' });
    await expect(w.retention.tick()).resolves.toBe(1);
    expect(w.stores.backups.rows.has(ids[0]!)).toBe(false);
  });

  it('two replicas never delete the same backup twice', async () => {
    const { w } = await history(8);
    const [a, b] = await Promise.all([w.retention.tick(), w.retention.tick()]);
    expect(a + b).toBe(4);
    expect(new Set(w.blobs.deleted).size).toBe(w.blobs.deleted.length);
  });

  it('finishes a deletion whose worker died, keeping its reason', async () => {
    const { w, ids } = await history(1);
    w.blobs.fail = new Error('storage down');
    await expect(w.backups.remove(USER, ids[0]!)).rejects.toThrow('storage down');
    // A crash between claim and removal leaves the record 'deleting' with its reason:
    await w.stores.backups.transition(
      { id: ids[0]!, status: ['completed'] },
      { status: 'deleting', deletingSince: w.now(), deleteReason: 'manual' },
    );
    w.blobs.fail = null;
    await expect(w.retention.tick()).resolves.toBe(0);
    w.clock.advance(DELETION_LEASE_MS + 1);
    await expect(w.retention.tick()).resolves.toBe(1);
    expect(w.events.of('backup.backup.deleted')[0]!.data.type).toBe('manual');
  });

  it("never touches another user's backups", async () => {
    const { w } = await history(5);
    const otherAgent = await w.connectAgent(['shop'], OTHER_USER, 'o');
    const theirs = await backupAt(w, otherAgent, OTHER_USER);
    await w.retention.tick();
    expect(w.stores.backups.rows.has(theirs)).toBe(true);
  });
});

describe('GFS retention sweep', () => {
  // history(10): one backup a day at midnight UTC, Sun 2025-06-01 to Tue 2025-06-10.
  const gfs = { hourly: 0, daily: 3, weekly: 3, monthly: 0, yearly: 0 };

  it('deletes what the GFS rule rejects, with the rule in the event, and a second pass deletes nothing', async () => {
    const { w, ids } = await history(10);
    await w.settings.update(USER, { retentionMode: 'gfs', gfs });
    // Kept: the last 3 days (06-08, 06-09, 06-10) and the newest of the last 3 weeks (06-10, 06-08, 06-01).
    await expect(w.retention.tick()).resolves.toBe(6);
    expect([...w.stores.backups.rows.keys()].sort()).toEqual([ids[0], ids[7], ids[8], ids[9]].sort());
    const deleted = w.events.of('backup.backup.deleted').map((e) => e.data);
    expect(deleted.map((d) => d.backupId).sort()).toEqual(ids.slice(1, 7).sort());
    expect(deleted.every((d) => d.type === 'auto')).toBe(true);
    expect(deleted[0]!.rule).toBe(
      'GFS retention (keep 0 hourly, 3 daily, 3 weekly, 0 monthly, 0 yearly): not the newest backup of a kept period',
    );
    await expect(w.retention.tick()).resolves.toBe(0);
  });

  it('keeps backups older than "keep N days" when GFS keeps them, and the days rule stays for other users', async () => {
    const { w, ids } = await history(10);
    await w.settings.update(USER, { retentionMode: 'gfs', gfs: { ...gfs, daily: 10 } });
    await expect(w.retention.tick()).resolves.toBe(0);
    expect(w.stores.backups.rows.size).toBe(ids.length);
    await w.settings.update(USER, { retentionMode: 'days' });
    await expect(w.retention.tick()).resolves.toBe(6); // the default 3 days again: 06-01 to 06-06
    expect(w.events.of('backup.backup.deleted')[0]!.data.rule).toBe('Retention: older than 3 days');
  });

  it('never deletes a backup under the retention lock before its date', async () => {
    const { w, ids } = await history(10);
    const until = new Date(w.now().getTime() + 48 * HOUR);
    w.stores.backups.rows.get(ids[3]!)!.lockedUntil = until;
    await w.settings.update(USER, { retentionMode: 'gfs', gfs });
    await expect(w.retention.tick()).resolves.toBe(5);
    expect(w.stores.backups.rows.has(ids[3]!)).toBe(true);
    w.clock.set(until);
    await expect(w.retention.tick()).resolves.toBe(1);
    expect(w.stores.backups.rows.has(ids[3]!)).toBe(false);
  });

  it('keeps the newest completed backup even when every period has moved past it', async () => {
    const { w, ids } = await history(3);
    await w.settings.update(USER, { retentionMode: 'gfs', gfs: { ...gfs, daily: 1, weekly: 0 } });
    w.clock.advance(400 * 24 * HOUR);
    await expect(w.retention.tick()).resolves.toBe(2);
    expect([...w.stores.backups.rows.keys()]).toEqual([ids[2]]);
  });

  it('skips a backup being restored, and deletes it once the restore has ended', async () => {
    const { w, agentId, ids } = await history(10);
    await w.restores.request({ userId: USER, backupId: ids[1]!, databaseName: 'shop' });
    await w.settings.update(USER, { retentionMode: 'gfs', gfs });
    await expect(w.retention.tick()).resolves.toBe(5);
    expect(w.stores.backups.rows.get(ids[1]!)).toMatchObject({ status: 'completed', deleteRule: null });
    const [r] = await w.restores.list(USER);
    await w.restores.fail({ userId: USER, agentId, restoreId: r!.id, error: 'x' });
    await expect(w.retention.tick()).resolves.toBe(1);
  });
});
