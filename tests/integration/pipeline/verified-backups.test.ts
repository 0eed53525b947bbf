// Verified backups (issue 20) on the real stack: the real agent backs up a FerretDB, the
// orchestrator sends it a verification, the agent restores that very file into a scratch database
// and compares it with the summary it recorded while dumping. A verified backup; a backup whose
// stored file was damaged (fails with the reason, mailed and audited, nothing deleted); a database
// changed between the dump and the verification (the digest is of the dump: still verified); and
// the scratch database gone after each.
import fs from 'node:fs';
import { api, eventually, newUser, waitForMail, type TestUser } from '../helpers';
import { mutate, seedDatabase } from '../../../agent/src/testing/database-fixtures';
import {
  backupCompleted,
  blobFiles,
  customerDbForFile,
  setupAgent,
  uniqueName,
  upgradeToPro,
  type Agent,
} from './harness';

jest.setTimeout(180_000);

const LABEL = 'verified-db';
const SRC = uniqueName('verified_');
const customer = customerDbForFile();
let owner: TestUser;
let agent: Agent;

const scratchDatabases = async () => {
  const { databases } = await customer().client.db('admin').admin().listDatabases({ nameOnly: true });
  return databases.map((d) => d.name).filter((n) => n.startsWith('coffer_verify_'));
};

/** The backup once its newest verification has finished. */
const verificationOf = (backupId: string) =>
  eventually(async () => {
    const res = await api('GET', `/api/backups/${backupId}`, { token: owner.token });
    const v = res.body?.verification;
    if (!v || v.status === 'pending' || v.status === 'in-progress')
      throw new Error(`verification of ${backupId}: ${JSON.stringify(v)}\n${agent.output.slice(-2000)}`);
    return { ...res.body, verification: v };
  }, 90_000);

const auditActions = async () => {
  const res = await api('GET', '/api/user/audit-logs?limit=100', { token: owner.token });
  return (
    (res.body.logs as Array<{ action: string; entityId?: string; details?: Record<string, unknown> }>) ?? []
  );
};

beforeAll(async () => {
  owner = await newUser('verified');
  await upgradeToPro(owner); // several backups in a row
  await seedDatabase(customer().client, SRC, { events: 300 });
  agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(SRC) }]);
});

describe('verified backups', () => {
  it('is off by default; "Verify each backup" verifies every backup that completes', async () => {
    const list = await api('GET', '/api/settings/databases', { token: owner.token });
    const db = (list.body as Array<{ _id: string; name: string; verify: string }>).find(
      (d) => d.name === LABEL,
    )!;
    expect(db.verify).toBe('off');
    const set = await api('PUT', `/api/settings/databases/${db._id}/verify`, {
      token: owner.token,
      body: { verify: 'each' },
    });
    expect(set.status).toBe(200);
    expect((set.body as Array<{ name: string; verify: string }>).find((d) => d.name === LABEL)!.verify).toBe(
      'each',
    );
    expect(
      (
        await api('PUT', `/api/settings/databases/${db._id}/verify`, {
          token: owner.token,
          body: { verify: 'daily' },
        })
      ).status,
    ).toBe(400);

    const backup = await backupCompleted(owner.token, LABEL, agent);
    const verified = await verificationOf(backup._id);
    expect(verified.verification).toMatchObject({
      status: 'verified',
      checked: { collections: 6, indexes: expect.any(Number) },
    });
    expect(verified.verification.checked.documents).toBeGreaterThan(300);
    expect(verified.verification.completedAt).toEqual(expect.any(String));
    expect(await scratchDatabases()).toEqual([]);
    await eventually(async () => {
      const entry = (await auditActions()).find((l) => l.action === 'BACKUP_VERIFIED');
      expect(entry).toMatchObject({ entityId: backup._id });
    }, 20_000);
  });

  it('still verifies after the database changed: the digest is of the dump', async () => {
    const list = await api('GET', '/api/backups', { token: owner.token });
    const backup = (list.body as Array<{ _id: string; status: string }>).find(
      (b) => b.status === 'completed',
    )!;
    await mutate(customer().client, SRC);
    const res = await api('POST', `/api/backups/${backup._id}/verify`, { token: owner.token });
    expect(res.status).toBe(202);
    const again = await verificationOf(backup._id);
    expect(again.verification.status).toBe('verified');
    expect(await scratchDatabases()).toEqual([]);
    // and nothing was restored over the database itself
    expect(await customer().client.db(SRC).collection('added-later').countDocuments()).toBe(1);
  });

  it('a damaged stored file fails verification with the reason: mailed, audited, nothing deleted', async () => {
    // The backup verified above (one backup an hour on this plan); its verifications have ended.
    const list = await api('GET', '/api/backups', { token: owner.token });
    const backup = (list.body as Array<{ _id: string; status: string }>).find(
      (b) => b.status === 'completed',
    )!;
    await verificationOf(backup._id);
    const [file] = blobFiles(owner.id, backup._id);
    expect(file).toBeDefined();
    const bytes = fs.readFileSync(file!);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    fs.writeFileSync(file!, bytes);

    const res = await api('POST', `/api/backups/${backup._id}/verify`, { token: owner.token });
    expect(res.status).toBe(202);
    const failed = await verificationOf(backup._id);
    expect(failed.verification.status).toBe('failed');
    expect(failed.verification.error).toMatch(/damaged|altered|authenticat|chunk/i);
    expect(await scratchDatabases()).toEqual([]);

    // Nothing deleted: the backup, its file and the database are all still there.
    expect(failed.status).toBe('completed');
    expect(blobFiles(owner.id, backup._id)).toHaveLength(1);
    expect(await customer().client.db(SRC).collection('events').countDocuments()).toBeGreaterThan(0);

    const mail = await waitForMail(owner.email, (m) => m.subject === 'Backup verification failed', 30_000);
    expect(mail.text).toContain(LABEL);
    await eventually(async () => {
      const entry = (await auditActions()).find(
        (l) => l.action === 'BACKUP_VERIFICATION_FAILED' && l.entityId === backup._id,
      );
      expect(entry?.details?.error).toMatch(/damaged|altered|authenticat|chunk/i);
    }, 20_000);
  });
});
