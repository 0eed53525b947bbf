import { gfsVerdicts } from './gfs.js';
import { USER, testWorld, commandReport } from '../test-world';
import { verificationDue, WEEKLY_MS } from './verification.js';

const summary = [
  { name: 'orders', documents: 2, digest: 'a'.repeat(64), indexes: ['{"key":{"_id":1},"name":"_id_"}'] },
];

/** A world whose agent reports 'shop', with the database's verification set to `verify`. */
async function world(verify: 'off' | 'each' | 'weekly') {
  const w = testWorld();
  const agentId = await w.connectAgent(['shop']);
  const db = (await w.stores.databases.list(USER))[0]!;
  await w.databases.setVerify(USER, db.id, verify);
  /** A backup that completes with the summary the agent reported before its upload ended. */
  const backup = async () => {
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({ ...commandReport(agentId, b), delivered: true });
    await w.verifications.recordSummary({ userId: USER, agentId, backupId: b.id, collections: summary });
    const done = await w.backups.complete({
      userId: USER,
      agentId,
      backupId: b.id,
      size: 2048,
      keyFingerprint: 'fp',
    });
    return { done, verification: await w.verifications.backupCompleted(done) };
  };
  return { w, agentId, backup };
}

describe('verifications', () => {
  it('are due after each backup, weekly once the last one is a week old, or never', () => {
    const now = new Date('2026-11-27T10:00:00Z');
    const at = (ms: number) => ({ createdAt: new Date(now.getTime() - ms) });
    expect(verificationDue('each', at(0), now)).toBe(true);
    expect(verificationDue('weekly', null, now)).toBe(true);
    expect(verificationDue('weekly', at(WEEKLY_MS - 1), now)).toBe(false);
    expect(verificationDue('weekly', at(WEEKLY_MS), now)).toBe(true);
    expect(verificationDue('off', null, now)).toBe(false);
    expect(verificationDue(undefined, null, now)).toBe(false);
  });

  it('start when a backup completes: the command carries the backup and the summary it recorded', async () => {
    const { w, agentId, backup } = await world('each');
    const { done, verification } = await backup();
    expect(verification).toMatchObject({ status: 'pending', backupId: done.id, agentId });
    expect(w.events.of('agent.command.requested').at(-1)!.data).toEqual({
      commandId: verification!.commandId,
      userId: USER,
      agentId,
      kind: 'verify',
      jobId: verification!.id,
      databaseName: 'shop',
      backupId: done.id,
      expected: summary,
    });
  });

  it('do not start when the database has them off', async () => {
    const { backup } = await world('off');
    expect((await backup()).verification).toBeNull();
  });

  it('record verified, or the first difference as a failure that deletes nothing', async () => {
    const { w, agentId, backup } = await world('each');
    const first = await backup();
    const v = first.verification!;
    const sel = { userId: USER, agentId, verificationId: v.id };
    await w.verifications.delivery({
      ...commandReport(agentId, v),
      delivered: true,
    });
    await w.verifications.beginDownload(sel);
    const checked = { collections: 1, documents: 2, indexes: 1 };
    await w.verifications.complete({ ...sel, verified: true, checked });
    expect(w.events.of('backup.verification.completed')[0]!.data).toMatchObject({
      backupId: first.done.id,
      checked,
    });

    w.clock.advance(25 * 3_600_000); // the Free plan's one backup a day
    await w.beat(agentId);
    const second = await backup();
    const s = second.verification!;
    await w.verifications.delivery({
      ...commandReport(agentId, s),
      delivered: true,
    });
    const difference = { collection: 'orders', what: 'documents' as const, expected: '2', found: '1' };
    await w.verifications.complete({
      userId: USER,
      agentId,
      verificationId: s.id,
      verified: false,
      checked,
      difference,
    });
    expect(w.events.of('backup.verification.failed')[0]!.data).toMatchObject({
      backupId: second.done.id,
      error: 'The restored copy differs: orders: 2 documents expected, 1 found',
      difference,
    });
    expect((await w.stores.backups.get(second.done.id))!.status).toBe('completed');

    // GFS keeps the newest verified backup as well as the newest one.
    const verdicts = gfsVerdicts(
      await w.stores.backups.ofUser(USER),
      {
        counts: { hourly: 0, daily: 0, weekly: 0, monthly: 0, yearly: 0 },
        failedKeepHours: 72,
        verified: await w.stores.verifications.verifiedBackupIds(USER),
      },
      w.now(),
    );
    expect(new Map(verdicts.filter((x) => x.keep).map((x) => [x.backup.id, x.reasons]))).toEqual(
      new Map([
        [second.done.id, ['newest']],
        [first.done.id, ['verified']],
      ]),
    );
  });

  it('can be asked for on a completed backup, one at a time per database', async () => {
    const { w, backup } = await world('off');
    const { done } = await backup();
    const v = await w.verifications.request(USER, done.id);
    expect(v.status).toBe('pending');
    await expect(w.verifications.request(USER, done.id)).rejects.toMatchObject({ kind: 'CONFLICT' });
    await expect(w.verifications.request('bbbbbbbbbbbbbbbbbbbbbbbb', done.id)).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
  });
});
