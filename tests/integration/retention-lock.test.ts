// The retention lock through the whole stack (docs/architecture.md, "Retention lock"): a real agent
// makes real backups; with the lock on, deleting one through the API, by deleting its account as an
// admin, or by the retention sweep is refused before its date and done after it. Dates are moved by
// backdating the records (the lock date of a backup is its own field), so nothing waits for days.
// A stack of its own: it deletes a user and runs the sweep every second. Storage is on the fs
// backend here (its own guard); S3 Object Lock is tested against MinIO in
// services/storage/src/object-lock.service.test.ts, where a retain-until seconds ahead can pass.
import { adminToken, api, eventually, waitForMail, type TestUser } from './helpers';
import { backdateBackups, backupCompleted, blobFiles } from './pipeline/harness';
import { HOUR, LABEL, oid, startSweepStack, type SweepStack } from './sweep-stack';

jest.setTimeout(300_000);

const LOCKED = /^This backup is locked until \w{3} \d{1,2}, \d{4}, \d{2}:\d{2} UTC by your retention lock/;

let sweep: SweepStack;

beforeAll(async () => {
  sweep = await startSweepStack('retention-lock');
}, 300_000);

afterAll(async () => {
  await sweep?.stop();
});

const backupsColl = () => sweep.backups();
const blobsColl = () => sweep.mongo.db('coffer_storage').collection('blobs');
const settingsColl = () => sweep.mongo.db('coffer_orchestrator').collection('settings');
const customerWithAgent = (prefix: string) => sweep.customerWithAgent(prefix);
const newBackup = (u: TestUser) => sweep.newBackup(u);

async function setLock(u: TestUser, enabled: boolean) {
  const res = await api('PUT', '/api/settings/retention-lock', { token: u.token, body: { enabled } });
  expect(res.status).toBe(200);
  return res.body.retentionLock;
}

/** Moves the backup's lock date (orchestrator's record and/or storage's blob) into the past. */
async function passLockDate(
  u: TestUser,
  backupId: string,
  where: { orchestrator?: boolean; storage?: boolean },
) {
  const past = new Date(Date.now() - 60_000);
  if (where.orchestrator)
    await backupsColl().updateOne({ _id: oid(backupId) }, { $set: { lockedUntil: past } });
  if (where.storage)
    await blobsColl().updateOne({ userId: u.id, blobId: backupId }, { $set: { lockedUntil: past } });
  await sweep.retentionDueNow(u.id);
}

const deleteBackup = (u: TestUser, id: string) => api('DELETE', `/api/backups/${id}`, { token: u.token });
const getBackup = (u: TestUser, id: string) => api('GET', `/api/backups/${id}`, { token: u.token });

async function auditActions(u: TestUser): Promise<string[]> {
  const res = await api('GET', '/api/user/audit-logs?page=1', { token: u.token });
  return (res.body.logs as Array<{ action: string }>).map((l) => l.action);
}

describe('retention lock', () => {
  let u: TestUser;
  let unlocked: any;
  let locked: any;

  beforeAll(async () => {
    u = await customerWithAgent('lock');
    unlocked = await backupCompleted(u.token, LABEL);
  });

  it('is off by default and on at once; backups made under it carry their date', async () => {
    const before = await api('GET', '/api/settings', { token: u.token });
    expect(before.body.retentionLock).toEqual({ enabled: false, offDelaySeconds: 7 * 24 * 3600 });
    expect(unlocked.lockedUntil).toBeUndefined();

    expect(await setLock(u, true)).toEqual({ enabled: true, offDelaySeconds: 7 * 24 * 3600 });
    locked = await newBackup(u);
    // createdAt + the retention in force (the default 3 days).
    expect(new Date(locked.lockedUntil).getTime()).toBe(new Date(locked.createdAt).getTime() + 72 * HOUR);
    const blob = await blobsColl().findOne({ userId: u.id, blobId: locked._id });
    expect(blob?.lockedUntil?.toISOString()).toBe(locked.lockedUntil);
    await eventually(async () => expect(await auditActions(u)).toContain('RETENTION_LOCK_ENABLED'));
  });

  it('refuses deletion through the API before the date, naming it (409 BACKUP_LOCKED)', async () => {
    const res = await deleteBackup(u, locked._id);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'BACKUP_LOCKED', lockedUntil: locked.lockedUntil });
    expect(res.body.message).toMatch(LOCKED);
    expect((await getBackup(u, locked._id)).status).toBe(200);
    expect(blobFiles(u.id, locked._id)).toHaveLength(1);
  });

  it('the retention sweep deletes an expired unlocked backup but keeps the locked one until its date', async () => {
    // Both far beyond the 3-day retention.
    await backdateBackups(
      backupsColl(),
      { _id: { $in: [oid(unlocked._id), oid(locked._id)] } },
      new Date(Date.now() - 100 * HOUR),
    );
    await sweep.retentionDueNow(u.id);
    await eventually(async () => expect((await getBackup(u, unlocked._id)).status).toBe(404), 30_000);
    expect((await getBackup(u, locked._id)).status).toBe(200);
    expect(blobFiles(u.id, locked._id)).toHaveLength(1);

    await passLockDate(u, locked._id, { orchestrator: true, storage: true });
    await eventually(async () => expect((await getBackup(u, locked._id)).status).toBe(404), 30_000);
    await eventually(async () => expect(blobFiles(u.id, locked._id)).toHaveLength(0));
    await eventually(async () => expect(await auditActions(u)).toContain('BACKUP_DELETED_AUTO'));
  });

  it('storage refuses on its own while its blob is locked, and the API deletes after the date', async () => {
    const b = await newBackup(u);
    // The orchestrator's record says the date has passed; storage's blob still says otherwise.
    await passLockDate(u, b._id, { orchestrator: true });
    const refused = await deleteBackup(u, b._id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'BACKUP_LOCKED' });
    expect(refused.body.message).toMatch(LOCKED);
    expect(blobFiles(u.id, b._id)).toHaveLength(1);

    await passLockDate(u, b._id, { storage: true });
    expect((await deleteBackup(u, b._id)).status).toBe(200);
    expect((await getBackup(u, b._id)).status).toBe(404);
    expect(blobFiles(u.id, b._id)).toHaveLength(0);
  });

  it('a turn-off waits for its delay, is mailed to the account, can be cancelled, then takes effect', async () => {
    const requested = await setLock(u, false);
    expect(requested.enabled).toBe(true);
    const offAt = new Date(requested.offAt!).getTime();
    expect(offAt).toBeGreaterThan(Date.now() + 7 * 24 * HOUR - 60_000);
    expect(offAt).toBeLessThanOrEqual(Date.now() + 7 * 24 * HOUR);
    const mail = await waitForMail(u.email, (m) => m.subject === 'Your Coffer retention lock will turn off');
    expect(mail.text).toContain('It stays on until');

    // A pending turn-off leaves new backups locked.
    const during = await newBackup(u);
    expect(during.lockedUntil).toBeDefined();

    expect(await setLock(u, true)).toEqual({ enabled: true, offDelaySeconds: 7 * 24 * 3600 });
    await setLock(u, false);
    // The delay passes.
    await settingsColl().updateOne(
      { userId: u.id },
      { $set: { retentionLockOffAt: new Date(Date.now() - 1000) } },
    );
    await eventually(async () =>
      expect((await api('GET', '/api/settings', { token: u.token })).body.retentionLock.enabled).toBe(false),
    );
    const after = await newBackup(u);
    expect(after.lockedUntil).toBeUndefined();
    expect((await deleteBackup(u, after._id)).status).toBe(200);
    // What was made under the lock keeps its date.
    expect((await deleteBackup(u, during._id)).status).toBe(409);
    await eventually(async () =>
      expect(await auditActions(u)).toEqual(
        expect.arrayContaining([
          'RETENTION_LOCK_DISABLE_REQUESTED',
          'RETENTION_LOCK_DISABLE_CANCELLED',
          'RETENTION_LOCK_DISABLED',
        ]),
      ),
    );
  });
});

describe('deleting an account with locked backups', () => {
  it('keeps them (record and file) until their date; the sweep removes them after it', async () => {
    const u = await customerWithAgent('lock-deleted');
    await setLock(u, true);
    const b = await backupCompleted(u.token, LABEL);
    expect(b.lockedUntil).toBeDefined();
    const admin = await adminToken();
    const res = await api('DELETE', `/api/admin/users/${u.id}`, { token: admin.token });
    expect(res.status).toBe(200);
    // The account is gone (its token no longer works) ...
    await eventually(async () =>
      expect((await api('GET', '/api/user/profile', { token: u.token })).status).toBe(401),
    );
    // ... its agents with it, but the locked backup stays in the orchestrator and in storage.
    await eventually(async () =>
      expect(
        await sweep.mongo.db('coffer_orchestrator').collection('agents').countDocuments({ userId: u.id }),
      ).toBe(0),
    );
    await eventually(async () =>
      expect(await blobsColl().findOne({ userId: u.id, blobId: b._id })).toMatchObject({
        ownerDeleted: true,
      }),
    );
    expect(await backupsColl().findOne({ _id: oid(b._id) })).toMatchObject({ status: 'completed' });
    expect(blobFiles(u.id, b._id)).toHaveLength(1);

    // Its date comes (at least the 3-day retention after it was made).
    await backdateBackups(backupsColl(), { _id: oid(b._id) }, new Date(Date.now() - 100 * HOUR));
    await passLockDate(u, b._id, { orchestrator: true, storage: true });
    await eventually(
      async () => expect(await backupsColl().countDocuments({ userId: u.id })).toBe(0),
      30_000,
    );
    await eventually(async () => expect(await blobsColl().countDocuments({ userId: u.id })).toBe(0), 30_000);
    expect(blobFiles(u.id, b._id)).toHaveLength(0);
  });
});
