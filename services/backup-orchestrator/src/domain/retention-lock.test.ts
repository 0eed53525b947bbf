import { AppError, notFound } from '@coffer/common';
import { USER, testWorld, type TestWorld, commandReport } from '../test-world';
import { lockHolds, lockStateAt } from './retention-lock';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

/** A completed manual backup of 'shop' taken now. */
async function completedBackup(w: TestWorld, agentId: string) {
  const b = await w.backups.trigger(USER, 'shop');
  await w.backups.delivery({ ...commandReport(agentId, b), delivered: true });
  await w.backups.complete({ userId: USER, agentId, backupId: b.id, size: 10, keyFingerprint: 'fp' });
  return (await w.stores.backups.get(b.id))!;
}

async function lockedWorld(retention = 168) {
  const w = testWorld({ plan: { frequencyLimit: 24, retentionLimit: 4320 } });
  const agentId = await w.connectAgent(['shop']);
  await w.settings.update(USER, { retention });
  await w.lock.enable(USER);
  return { w, agentId };
}

const lockEvents = (w: TestWorld) => w.events.of('settings.retention_lock.updated').map((e) => e.data.change);

describe('retention lock state', () => {
  it('is off by default, on at once, and a requested turn-off waits for its date', async () => {
    const w = testWorld();
    await expect(w.lock.get(USER)).resolves.toEqual({ enabled: false, offAt: null });
    await w.lock.enable(USER);
    await expect(w.lock.get(USER)).resolves.toEqual({ enabled: true, offAt: null });

    const requested = await w.lock.requestDisable(USER);
    expect(requested).toEqual({ enabled: true, offAt: new Date(w.now().getTime() + WEEK) });
    // Asking again keeps the first date (a second request cannot pull it closer, nor push it).
    w.clock.advance(DAY);
    await expect(w.lock.requestDisable(USER)).resolves.toEqual(requested);

    w.clock.advance(WEEK - DAY - 1);
    await expect(w.lock.get(USER)).resolves.toEqual(requested);
    w.clock.advance(1);
    await expect(w.lock.get(USER)).resolves.toEqual({ enabled: false, offAt: null });
    expect(lockEvents(w)).toEqual(['enabled', 'disable_requested', 'disabled']);
    expect(w.events.of('settings.retention_lock.updated')[1]?.data.effectiveAt).toBe(
      requested.offAt!.toISOString(),
    );
  });

  it('cancels a pending turn-off when switched on again', async () => {
    const w = testWorld();
    await w.lock.enable(USER);
    await w.lock.requestDisable(USER);
    await expect(w.lock.enable(USER)).resolves.toEqual({ enabled: true, offAt: null });
    w.clock.advance(2 * WEEK);
    await expect(w.lock.settleDue()).resolves.toBe(0);
    await expect(w.lock.get(USER)).resolves.toEqual({ enabled: true, offAt: null });
    expect(lockEvents(w)).toEqual(['enabled', 'disable_requested', 'disable_cancelled']);
  });

  it('the timer settles due turn-offs once, announcing each once', async () => {
    const w = testWorld();
    await w.lock.enable(USER);
    await w.lock.requestDisable(USER);
    w.clock.advance(WEEK);
    await expect(w.lock.settleDue()).resolves.toBe(1);
    await expect(w.lock.settleDue()).resolves.toBe(0);
    expect(w.events.distinct('settings.retention_lock.updated').map((e) => e.data.change)).toEqual([
      'enabled',
      'disable_requested',
      'disabled',
    ]);
  });

  it('turning off what is off, or on what is on, changes and announces nothing', async () => {
    const w = testWorld();
    await w.lock.requestDisable(USER);
    await w.lock.enable(USER);
    await w.lock.enable(USER);
    expect(lockEvents(w)).toEqual(['enabled']);
  });

  it('lockStateAt and lockHolds are the rules the stores apply', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const later = new Date(now.getTime() + 1);
    expect(lockStateAt(null, now).enabled).toBe(false);
    expect(lockStateAt({ enabled: true, offAt: now }, now).enabled).toBe(false);
    expect(lockStateAt({ enabled: true, offAt: later }, now)).toEqual({ enabled: true, offAt: later });
    expect(lockHolds({ status: 'completed', lockedUntil: later }, now)).toBe(true);
    expect(lockHolds({ status: 'completed', lockedUntil: now }, now)).toBe(false);
    expect(lockHolds({ status: 'failed', lockedUntil: later }, now)).toBe(true);
    expect(lockHolds({ status: 'in-progress', lockedUntil: later }, now)).toBe(false);
    expect(lockHolds({ status: 'completed', lockedUntil: null }, now)).toBe(false);
  });
});

describe('backups under the retention lock', () => {
  it('record createdAt + the retention in force, which a later settings change does not move', async () => {
    const { w, agentId } = await lockedWorld(720);
    const b = await completedBackup(w, agentId);
    expect(b.lockedUntil).toEqual(new Date(b.createdAt.getTime() + 720 * HOUR));
    await w.settings.update(USER, { retention: 72 });
    await w.lock.requestDisable(USER);
    w.clock.advance(WEEK + HOUR); // the lock is off now, and 72 h retention has long passed
    await expect(w.retention.tick()).resolves.toBe(0);
    expect(w.stores.backups.rows.has(b.id)).toBe(true);
    expect((await w.stores.backups.get(b.id))!.lockedUntil).toEqual(b.lockedUntil);
  });

  it('refuse deletion by the user before the date with the date named; allow it after', async () => {
    const { w, agentId } = await lockedWorld(72);
    const b = await completedBackup(w, agentId);
    const refusal = await w.backups.remove(USER, b.id).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({
      kind: 'CONFLICT',
      code: 'BACKUP_LOCKED',
      details: { lockedUntil: b.lockedUntil!.toISOString() },
    });
    expect((refusal as AppError).message).toMatch(
      /^This backup is locked until \w{3} \d+, \d{4}, .* UTC by your retention lock/,
    );
    expect(w.blobs.deleted).toEqual([]);
    w.clock.set(b.lockedUntil!);
    await w.backups.remove(USER, b.id);
    expect(w.blobs.deleted).toEqual([b.id]);
  });

  it('are not taken by the retention sweep before the date, and are after it', async () => {
    const { w, agentId } = await lockedWorld(168);
    const b = await completedBackup(w, agentId);
    await w.settings.update(USER, { retention: 72 });
    w.clock.advance(100 * HOUR);
    await expect(w.retention.tick()).resolves.toBe(0);
    w.clock.set(b.lockedUntil!);
    await expect(w.retention.tick()).resolves.toBe(1);
    expect(w.blobs.deleted).toEqual([b.id]);
  });

  it('are not locked when made with the lock off, nor after a turn-off took effect', async () => {
    const w = testWorld({ plan: { frequencyLimit: 24, retentionLimit: 4320 } });
    const agentId = await w.connectAgent(['shop']);
    expect((await completedBackup(w, agentId)).lockedUntil).toBeNull();
    await w.lock.enable(USER);
    await w.lock.requestDisable(USER);
    w.clock.advance(DAY);
    await w.beat(agentId);
    // Pending turn-off: still on.
    expect((await completedBackup(w, agentId)).lockedUntil).not.toBeNull();
    w.clock.advance(WEEK);
    await w.beat(agentId);
    expect((await completedBackup(w, agentId)).lockedUntil).toBeNull();
  });

  it('a failed backup stays with the file storage may have locked for it, until its date', async () => {
    const { w, agentId } = await lockedWorld();
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({ ...commandReport(agentId, b), delivered: true });
    await w.backups.fail({ userId: USER, agentId, backupId: b.id, error: 'mongodump exited with 1' });
    await expect(w.backups.remove(USER, b.id)).rejects.toMatchObject({ code: 'BACKUP_LOCKED' });
    w.clock.set(b.lockedUntil!);
    await w.backups.remove(USER, b.id);
    expect(w.stores.backups.rows.has(b.id)).toBe(false);
  });

  it('outlive the deletion of their account until their date; the sweep removes them then', async () => {
    const { w, agentId } = await lockedWorld(168);
    const locked = await completedBackup(w, agentId);
    await w.cleanup.userDeleted(USER);
    expect([...w.stores.backups.rows.keys()]).toEqual([locked.id]);
    expect(w.stores.agents.rows.size).toBe(0);
    w.plans.planOf = async () => {
      throw notFound('User not found');
    };
    w.clock.advance(100 * HOUR);
    await expect(w.retention.tick()).resolves.toBe(0);
    w.clock.set(locked.lockedUntil!);
    await expect(w.retention.tick()).resolves.toBe(1);
    expect(w.blobs.deleted).toEqual([locked.id]);
    expect(w.stores.backups.rows.size).toBe(0);
  });
});
