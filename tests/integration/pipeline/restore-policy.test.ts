// The agent decides which restores it allows (issue 19): through the whole stack and the real
// agent, a file bound to another database is refused before anything is dropped, a backup of an
// empty database is not restored over data until the user confirms exactly that, and a host that
// turned restores off refuses them before downloading anything. Each refusal is the restore's
// failure reason, as Restore History shows it.
import fs from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { createEncryptor } from '../../../agent/src/crypto/encrypt';
import { decodeKey } from '../../../agent/src/crypto/key';
import { through } from '../../../agent/src/testing/byte-streams';
import { api, newUser, type TestUser } from '../helpers';
import { insertEvents, mutate, seedDatabase, snapshot } from '../../../agent/src/testing/database-fixtures';
import {
  agentCli,
  backupCompleted,
  blobFiles,
  customerDbForFile,
  restoreEnded,
  setupAgent,
  uniqueName,
  upgradeToPro,
  waitRestore,
  type Agent,
} from './harness';

jest.setTimeout(180_000);

const ALPHA = 'alpha';
const ALPHA_DB = uniqueName('alpha_');
const BRAVO = 'bravo';
const BRAVO_DB = uniqueName('bravo_');
/** A database that is empty when it is backed up. */
const BLANK = 'blank';
const BLANK_DB = uniqueName('blank_');

const customer = customerDbForFile();
let service: MongoClient;
let owner: TestUser;
let agent: Agent;
let alphaBackup: any;
let bravoBackup: any;
let blankBackup: any;

beforeAll(async () => {
  service = await MongoClient.connect(process.env.COFFER_MONGO_URL!);
  owner = await newUser('policy');
  await seedDatabase(customer().client, ALPHA_DB, { events: 20 });
  await seedDatabase(customer().client, BRAVO_DB, { events: 20 });
  // Three databases need a plan with room for them (Free has one).
  await upgradeToPro(owner);
  agent = await setupAgent(
    owner,
    [
      { label: ALPHA, uri: customer().uri(ALPHA_DB) },
      { label: BRAVO, uri: customer().uri(BRAVO_DB) },
      { label: BLANK, uri: customer().uri(BLANK_DB) },
    ],
    { start: false },
  );
  // Policy changes made with the CLI below are picked up quickly.
  await agent.start({ env: { COFFER_AGENT_CONFIG_POLL_MS: '300' } });
  [alphaBackup, bravoBackup, blankBackup] = await Promise.all([
    backupCompleted(owner.token, ALPHA, agent),
    backupCompleted(owner.token, BRAVO, agent),
    backupCompleted(owner.token, BLANK, agent),
  ]);
});

afterAll(async () => {
  await service?.close();
});

const blobs = () => service.db('coffer_storage').collection('blobs');

async function restoreAndWait(backupId: string, label: string, confirm?: string[]): Promise<any> {
  if (!confirm) return restoreEnded(owner.token, backupId, label, agent);
  const res = await api('POST', `/api/backups/${backupId}/restore`, {
    token: owner.token,
    body: { databaseName: label, confirm: confirm as ['empty-backup'] },
  });
  expect(res.status).toBe(202);
  return waitRestore(owner.token, (res.body as any).restore._id, 60_000, agent);
}

it('writes every backup bound to its label and id (format version 2)', () => {
  for (const [b, label] of [
    [alphaBackup, ALPHA],
    [bravoBackup, BRAVO],
  ] as const) {
    const file = fs.readFileSync(blobFiles(owner.id, b._id)[0]!);
    expect(file[6]).toBe(2);
    const labelLength = file[67]!;
    expect(file.subarray(68, 68 + labelLength).toString('utf8')).toBe(label);
    const idLength = file[68 + labelLength]!;
    expect(file.subarray(69 + labelLength, 69 + labelLength + idLength).toString('utf8')).toBe(b._id);
  }
});

it("refuses a backup of another database handed over as this one's, and leaves the database untouched", async () => {
  // What a compromised server or storage can do: serve alpha's genuine file (same agent, same
  // key) for a restore of bravo. Both databases have the same collections, so only the binding
  // tells them apart... and the database name inside the archive, which is checked after it.
  const [bravoBlob] = blobFiles(owner.id, bravoBackup._id);
  const [alphaBlob] = blobFiles(owner.id, alphaBackup._id);
  const original = fs.readFileSync(bravoBlob!);
  const foreign = fs.readFileSync(alphaBlob!);
  await mutate(customer().client, BRAVO_DB);
  const before = await snapshot(customer().client, BRAVO_DB);
  fs.writeFileSync(bravoBlob!, foreign);
  await blobs().updateOne({ blobId: bravoBackup._id }, { $set: { size: foreign.length } });
  try {
    const restore = await restoreAndWait(bravoBackup._id, BRAVO);
    expect(restore.status).toBe('failed');
    expect(restore.error).toMatch(
      /^Refusing to restore "bravo": the backup file belongs to database "alpha", not "bravo"\. Nothing was changed\./,
    );
  } finally {
    fs.writeFileSync(bravoBlob!, original);
    await blobs().updateOne({ blobId: bravoBackup._id }, { $set: { size: original.length } });
  }
  expect(await snapshot(customer().client, BRAVO_DB)).toEqual(before);
});

it('refuses an empty-database backup over a database that holds data, then restores it once the user confirms', async () => {
  await insertEvents(customer().client, BLANK_DB, 50);
  const before = await snapshot(customer().client, BLANK_DB);

  const refused = await restoreAndWait(blankBackup._id, BLANK);
  expect(refused.status).toBe('failed');
  expect(refused.error).toMatch(
    /^Refusing to restore "blank": this backup holds no documents \(it is a backup of an empty database\), and "blank" holds about \d+ document\(s\) now: restoring it would delete them all\. Nothing was changed\./,
  );
  expect(await snapshot(customer().client, BLANK_DB)).toEqual(before);

  const confirmed = await restoreAndWait(blankBackup._id, BLANK, ['empty-backup']);
  expect(confirmed).toMatchObject({ status: 'completed', documentsRestored: 0, documentsFailed: 0 });
  expect(await customer().client.db(BLANK_DB).listCollections().toArray()).toEqual([]);
});

it('refuses every restore, before downloading, while the host has turned restores off', async () => {
  const deny = await agentCli(['restores', 'deny'], agent.config);
  expect(deny).toMatchObject({ code: 0 });
  expect(deny.stdout).toContain('Restores from the dashboard: refused');
  await agent.waitForLog((l) => l.msg === 'the restore policy changed in the config' && l.allowed === false);
  const before = await snapshot(customer().client, ALPHA_DB);
  const restore = await restoreAndWait(alphaBackup._id, ALPHA);
  expect(restore.status).toBe('failed');
  expect(restore.error).toBe(
    'Refusing to restore "alpha": restores started from the dashboard are turned off on this agent. ' +
      'Nothing was changed. To allow them, run on the database host: coffer-agent restores allow',
  );
  expect(agent.logs().some((l) => l.msg === 'backup file downloaded' && l.jobId === restore._id)).toBe(false);
  expect(await snapshot(customer().client, ALPHA_DB)).toEqual(before);

  expect((await agentCli(['restores', 'allow'], agent.config)).code).toBe(0);
  await agent.waitForLog((l) => l.msg === 'the restore policy changed in the config' && l.allowed === true);
  const allowed = await restoreAndWait(alphaBackup._id, ALPHA);
  expect(allowed.status).toBe('completed');
});

it('refuses an older, unbound (version 1) backup until the host allows unbound backups', async () => {
  // The same archive as alpha's backup, sealed as an agent before format version 2 wrote it.
  const [alphaBlob] = blobFiles(owner.id, alphaBackup._id);
  const original = fs.readFileSync(alphaBlob!);
  const archive = path.join(agent.dir, 'alpha.archive');
  expect(await agentCli(['decrypt', alphaBlob!, '-o', archive], agent.config)).toMatchObject({ code: 0 });
  const masterKey = decodeKey(JSON.parse(fs.readFileSync(agent.config, 'utf8')).masterKey);
  const unbound = await through(createEncryptor({ masterKey }).stream, fs.readFileSync(archive));
  expect(unbound[6]).toBe(1);

  await mutate(customer().client, ALPHA_DB);
  const before = await snapshot(customer().client, ALPHA_DB);
  fs.writeFileSync(alphaBlob!, unbound);
  await blobs().updateOne({ blobId: alphaBackup._id }, { $set: { size: unbound.length } });
  try {
    const refused = await restoreAndWait(alphaBackup._id, ALPHA);
    expect(refused.status).toBe('failed');
    expect(refused.error).toBe(
      'Refusing to restore "alpha": the backup file was written by an older agent and does not name ' +
        'its database, and this agent restores only backups bound to the database being restored. ' +
        'Nothing was changed. To restore older backups, run on the database host: coffer-agent restores binding optional',
    );
    expect(await snapshot(customer().client, ALPHA_DB)).toEqual(before);

    expect((await agentCli(['restores', 'binding', 'optional'], agent.config)).code).toBe(0);
    await agent.waitForLog(
      (l) => l.msg === 'the restore policy changed in the config' && l.requireBinding === false,
    );
    const restored = await restoreAndWait(alphaBackup._id, ALPHA);
    expect(restored.status).toBe('completed');
    expect(await snapshot(customer().client, ALPHA_DB)).not.toEqual(before);
  } finally {
    await agentCli(['restores', 'binding', 'required'], agent.config);
    fs.writeFileSync(alphaBlob!, original);
    await blobs().updateOne({ blobId: alphaBackup._id }, { $set: { size: original.length } });
  }
});
