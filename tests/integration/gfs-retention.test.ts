// GFS retention through the whole stack (docs/architecture.md, "GFS retention"): a real agent makes
// real backups, their dates are moved back in the orchestrator's records, the preview answers which
// would go, and once GFS is saved the sweep (every second here) deletes exactly those, blob and
// all, audited with the rule; a backup under the retention lock stays until its date.
import { api, eventually, type TestUser } from './helpers';
import { backupCompleted, blobFiles } from './pipeline/harness';
import { auditEntries, HOUR, LABEL, oid, startSweepStack, type SweepStack } from './sweep-stack';

jest.setTimeout(300_000);

let sweep: SweepStack;

beforeAll(async () => {
  sweep = await startSweepStack('gfs-retention');
}, 300_000);

afterAll(async () => {
  await sweep?.stop();
});

const DAILY_2 = { hourly: 0, daily: 2, weekly: 0, monthly: 0, yearly: 0 };
const RULE =
  'GFS retention (keep 0 hourly, 2 daily, 0 weekly, 0 monthly, 0 yearly): not the newest backup of a kept period';
const preview = (u: TestUser | null, body: unknown) =>
  api('POST', '/api/settings/retention/preview', { token: u?.token, body });
const getBackup = (u: TestUser, id: string) => api('GET', `/api/backups/${id}`, { token: u.token });

/** Dates the backup `hours` back, as if it had run then (the rule files it under its end). */
async function backdate(id: string, hours: number) {
  const at = new Date(Date.now() - hours * HOUR);
  await sweep
    .backups()
    .updateOne(
      { _id: oid(id) },
      { $set: { createdAt: at, startedAt: at, completedAt: new Date(at.getTime() + 1000) } },
    );
}

describe('GFS retention', () => {
  let u: TestUser;
  const b: Record<'old' | 'locked' | 'yesterday' | 'today', any> = {} as never;

  beforeAll(async () => {
    u = await sweep.customerWithAgent('gfs');
    // Keep 7 days until GFS is saved, so the spec's rule leaves the backdated backups alone meanwhile.
    expect((await api('PUT', '/api/settings', { token: u.token, body: { retention: 168 } })).status).toBe(
      200,
    );
    b.old = await backupCompleted(u.token, LABEL);
    // Made under the retention lock: kept until its date (7 days on), whatever GFS says.
    expect(
      (await api('PUT', '/api/settings/retention-lock', { token: u.token, body: { enabled: true } })).status,
    ).toBe(200);
    b.locked = await sweep.newBackup(u);
    b.yesterday = await sweep.newBackup(u);
    b.today = await sweep.newBackup(u);
    await backdate(b.old._id, 24 * 4);
    await backdate(b.locked._id, 24 * 2);
    await backdate(b.yesterday._id, 24);
    await backdate(b.today._id, 0);
  });

  it('the preview needs a token', async () => {
    expect((await preview(null, { gfs: DAILY_2 })).status).toBe(401);
  });

  it.each([
    ['no counts', {}, 'gfs must give hourly, daily, weekly, monthly and yearly counts'],
    ['a negative count', { gfs: { ...DAILY_2, hourly: -1 } }, 'hourly must be a whole number from 0 to 1000'],
    ['a fraction', { gfs: { ...DAILY_2, daily: 1.5 } }, 'daily must be a whole number from 0 to 1000'],
    ['a word', { gfs: { ...DAILY_2, weekly: 'four' } }, 'weekly must be a whole number from 0 to 1000'],
    ['too many', { gfs: { ...DAILY_2, monthly: 1001 } }, 'monthly must be a whole number from 0 to 1000'],
    [
      'a missing period',
      { gfs: { hourly: 0, daily: 2, weekly: 0, monthly: 0 } },
      'yearly must be a whole number from 0 to 1000',
    ],
    [
      'nothing kept',
      { gfs: { ...DAILY_2, daily: 0 } },
      'Keep at least one hourly, daily, weekly, monthly or yearly backup',
    ],
  ])('the preview refuses %s with a 400 naming it', async (_what, body, message) => {
    const res = await preview(u, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  it("the preview refuses counts beyond the plan's (Free keeps no monthly backups)", async () => {
    const res = await preview(u, { gfs: { ...DAILY_2, monthly: 1 } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      code: 'PLAN_GFS_LIMIT',
      message: 'Your plan keeps at most 0 monthly backups with GFS retention',
      gfsLimits: { hourly: 0, daily: 7, weekly: 4, monthly: 0, yearly: 0 },
    });
  });

  it('the preview names what the rule would delete and why the rest stays, deleting nothing', async () => {
    const res = await preview(u, { gfs: DAILY_2 });
    expect(res.status).toBe(200);
    expect(res.body.deleteCount).toBe(1);
    const verdicts = Object.fromEntries(
      (res.body.backups as any[]).map((v) => [v._id, { keep: v.keep, reasons: v.reasons, rule: v.rule }]),
    );
    expect(verdicts).toEqual({
      // Made under the lock too, and kept by the rule besides.
      [b.today._id]: { keep: true, reasons: ['daily', 'newest', 'locked'] },
      [b.yesterday._id]: { keep: true, reasons: ['daily', 'locked'] },
      [b.locked._id]: { keep: true, reasons: ['locked'] },
      [b.old._id]: { keep: false, reasons: [], rule: RULE },
    });
    expect((await getBackup(u, b.old._id)).status).toBe(200);
  });

  it('once saved, the sweep deletes what the preview named, audited with the rule, and keeps the locked one until its date', async () => {
    const saved = await api('PUT', '/api/settings', {
      token: u.token,
      body: { retentionMode: 'gfs', gfs: DAILY_2 },
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ retentionMode: 'gfs', gfs: DAILY_2, retention: 168 });

    await eventually(async () => expect((await getBackup(u, b.old._id)).status).toBe(404), 30_000);
    await eventually(async () => expect(blobFiles(u.id, b.old._id)).toHaveLength(0));
    for (const kept of [b.locked, b.yesterday, b.today])
      expect((await getBackup(u, kept._id)).status).toBe(200);
    await eventually(async () => {
      const entries = await auditEntries(u);
      expect(entries.filter((e) => e.action === 'BACKUP_DELETED_AUTO').map((e) => e.details.rule)).toEqual([
        RULE,
      ]);
      expect(entries.find((e) => e.action === 'RETENTION_UPDATED')?.details.value).toBe(
        'keep 7 days → GFS 0 hourly, 2 daily, 0 weekly, 0 monthly, 0 yearly',
      );
    });

    // The lock's date passes: now GFS decides for it as for any other backup.
    const past = new Date(Date.now() - 60_000);
    await sweep.backups().updateOne({ _id: oid(b.locked._id) }, { $set: { lockedUntil: past } });
    await sweep.mongo
      .db('coffer_storage')
      .collection('blobs')
      .updateOne({ userId: u.id, blobId: b.locked._id }, { $set: { lockedUntil: past } });
    await sweep.retentionDueNow(u.id);
    await eventually(async () => expect((await getBackup(u, b.locked._id)).status).toBe(404), 30_000);
    await eventually(async () =>
      expect(
        (await auditEntries(u)).filter((e) => e.action === 'BACKUP_DELETED_AUTO').map((e) => e.details.rule),
      ).toEqual([RULE, RULE]),
    );
    // Later passes find nothing more to delete: the two the rule keeps stay.
    for (const kept of [b.yesterday, b.today]) expect((await getBackup(u, kept._id)).status).toBe(200);
    expect(await sweep.backups().countDocuments({ userId: u.id })).toBe(2);
  });
});
