import { OTHER_USER, USER, testWorld } from '../test-world';
import { cachedCount } from './overdue';

const HOUR = 3_600_000;

async function completedBackup(w: ReturnType<typeof testWorld>, agentId: string, userId = USER, db = 'shop') {
  await w.beat(agentId, [], userId);
  const b = await w.backups.trigger(userId, db);
  await w.backups.delivery({ userId, agentId, commandId: b.commandId, jobId: b.id, delivered: true });
  await w.backups.complete({ userId, agentId, backupId: b.id, size: 10, keyFingerprint: 'fp' });
}

describe('databases overdue for a backup', () => {
  it('counts a database once its last completed backup is older than twice its interval, by plan', async () => {
    const w = testWorld({ plan: { id: 'pro', frequencyLimit: 1, dbLimit: 5 } });
    w.clock.set('2025-06-02T09:00:00Z');
    const agentId = await w.connectAgent(['shop']);
    await w.settings.update(USER, { frequency: 24 });
    await completedBackup(w, agentId);
    await expect(w.overdue()).resolves.toEqual([{ plan: 'pro', scheduled: 1, overdue: 0 }]);
    w.clock.advance(47 * HOUR);
    await expect(w.overdue()).resolves.toEqual([{ plan: 'pro', scheduled: 1, overdue: 0 }]);
    w.clock.advance(2 * HOUR);
    await expect(w.overdue()).resolves.toEqual([{ plan: 'pro', scheduled: 1, overdue: 1 }]);
    // A new backup brings it back.
    await completedBackup(w, agentId);
    await expect(w.overdue()).resolves.toEqual([{ plan: 'pro', scheduled: 1, overdue: 0 }]);
  });

  it('counts a database never backed up from when it was reported, and leaves out those over the plan limit', async () => {
    const w = testWorld({ plan: { frequencyLimit: 24, dbLimit: 1 } });
    w.clock.set('2025-06-02T09:00:00Z');
    await w.connectAgent(['shop', 'crm']);
    await w.connectAgent(['erp'], OTHER_USER, 'other-inst');
    w.clock.advance(49 * HOUR);
    // dbLimit 1: one database of USER is scheduled, the other is inactive; OTHER_USER's one counts.
    await expect(w.overdue()).resolves.toEqual([{ plan: 'unknown', scheduled: 2, overdue: 2 }]);
  });

  it("uses the plan's interval when it is longer than the user's frequency", async () => {
    const w = testWorld({ plan: { id: 'free', frequencyLimit: 168, dbLimit: 1 } });
    w.clock.set('2025-06-02T09:00:00Z');
    await w.connectAgent(['shop']);
    w.clock.advance(100 * HOUR);
    await expect(w.overdue()).resolves.toEqual([{ plan: 'free', scheduled: 1, overdue: 0 }]);
  });
});

describe('cachedCount', () => {
  it('reuses a count for its time to live and asks again after a failure', async () => {
    let now = 0;
    let calls = 0;
    let fail = true;
    const count = cachedCount(
      async () => {
        calls++;
        if (fail) throw new Error('down');
        return calls;
      },
      1_000,
      () => now,
    );
    await expect(count()).rejects.toThrow('down');
    fail = false;
    await expect(count()).resolves.toBe(2);
    now = 999;
    await expect(count()).resolves.toBe(2);
    now = 1_000;
    await expect(count()).resolves.toBe(3);
  });
});
