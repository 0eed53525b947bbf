// Verified backups against a real FerretDB with the real mongodump/mongorestore: a backup's
// summary, the restore into a scratch database, the comparison, and the scratch database gone
// afterwards whatever happened. The test starts its own FerretDB on a free port.
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import type { BackupSummary } from '@coffer/contracts';
import { generateMasterKey } from '../crypto/key.js';
import { requireOnPath, startFerretDB, type FerretDB } from '../testing/ferretdb.js';
import { mutate, seedDatabase } from '../testing/database-fixtures.js';
import { runBackup } from './backup.js';
import { PipelineError } from './errors.js';
import { runVerification, SCRATCH_PREFIX, summarizeDatabase, verifyTargetProblem } from './verify.js';

jest.setTimeout(180_000);

const SRC = 'verify_src';
const JOB = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const key = generateMasterKey();
let ferret: FerretDB;
let client: MongoClient;
let dir: string;
let file: string;
let summary: BackupSummary;

const uriFor = (db: string) => `${ferret.uri}${encodeURIComponent(db)}`;
const source = () => ({ uri: uriFor(SRC), db: SRC, label: 'shop' });

async function scratchDatabases(): Promise<string[]> {
  const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true });
  return databases.map((d) => d.name).filter((n) => n.startsWith(SCRATCH_PREFIX));
}

beforeAll(async () => {
  requireOnPath('ferretdb', 'mongodump', 'mongorestore');
  ferret = await startFerretDB();
  client = await MongoClient.connect(ferret.uri);
  dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-verify-'));
  await seedDatabase(client, SRC, { events: 500 });
  file = path.join(dir, 'backup.coffer');
  const sink = createWriteStream(file, { mode: 0o600 });
  const closed = new Promise<void>((resolve) => sink.on('close', () => resolve()));
  let reported: BackupSummary | undefined;
  const result = await runBackup({
    uri: uriFor(SRC),
    dbName: SRC,
    sink,
    masterKey: key,
    backupId: JOB,
    label: 'shop',
    onSummary: async (s) => {
      reported = s;
    },
  });
  await closed;
  summary = result.summary!;
  expect(reported).toEqual(summary);
});

afterAll(async () => {
  await client?.close();
  await ferret?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the summary a backup records', () => {
  it('is what the source database holds: counts, indexes and digests as read back from the server', async () => {
    const names = summary.map((c) => c.name).sort();
    expect(names).toEqual(['customers', 'dots.in.name', 'empty', 'events', 'with space', 'ünïcode'].sort());
    expect(summary.find((c) => c.name === 'events')!.documents).toBe(500);
    expect(summary.find((c) => c.name === 'customers')!.indexes).toHaveLength(4);
    // The same summary from the database itself (nothing changed yet): the digest of the dump is
    // the digest of the stored documents.
    const fromServer = await summarizeDatabase(client, SRC);
    expect(fromServer).toEqual([...summary].sort((a, b) => (a.name < b.name ? -1 : 1)));
  });
});

describe('runVerification', () => {
  afterEach(async () => {
    expect(await scratchDatabases()).toEqual([]);
  });

  it('verifies a backup: every collection restored into a scratch database matches', async () => {
    const result = await runVerification({
      source: source(),
      file,
      masterKey: key,
      expected: summary,
      jobId: JOB,
    });
    expect(result.difference).toBeUndefined();
    expect(result.verified).toBe(true);
    expect(result.scratchDb.startsWith(SCRATCH_PREFIX)).toBe(true);
    expect(result.checked).toEqual({
      collections: 6,
      documents: summary.reduce((n, c) => n + c.documents, 0),
      indexes: summary.reduce((n, c) => n + c.indexes.length, 0),
    });
  });

  it('still verifies after the database changed: the digest is of the dump', async () => {
    const other = 'verify_changed';
    await seedDatabase(client, other, { events: 10 });
    const f = path.join(dir, 'changed.coffer');
    const sink = createWriteStream(f, { mode: 0o600 });
    const closed = new Promise<void>((resolve) => sink.on('close', () => resolve()));
    const made = await runBackup({ uri: uriFor(other), dbName: other, sink, masterKey: key, backupId: JOB });
    await closed;
    await mutate(client, other);
    const result = await runVerification({
      source: { uri: uriFor(other), db: other, label: 'changed' },
      file: f,
      masterKey: key,
      expected: made.summary!,
      jobId: JOB,
    });
    expect(result).toMatchObject({ verified: true });
    // and the source database keeps its changes: a verification never restores over it
    expect(await client.db(other).collection('added-later').countDocuments()).toBe(1);
  });

  it('reports the first difference when the restore does not match what was recorded', async () => {
    const expected = summary.map((c) => (c.name === 'events' ? { ...c, documents: c.documents + 1 } : c));
    const result = await runVerification({ source: source(), file, masterKey: key, expected, jobId: JOB });
    expect(result.verified).toBe(false);
    expect(result.difference).toEqual({
      collection: 'events',
      what: 'documents',
      expected: '501',
      found: '500',
    });
  });

  it('fails with the reason when the stored file is damaged, and drops the scratch database', async () => {
    const damaged = path.join(dir, 'damaged.coffer');
    const bytes = readFileSync(file);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    writeFileSync(damaged, bytes);
    const run = runVerification({
      source: source(),
      file: damaged,
      masterKey: key,
      expected: summary,
      jobId: JOB,
    });
    await expect(run).rejects.toThrow(/damaged|altered|authenticat/i);
  });

  it('refuses a verification target that is the database itself', async () => {
    expect(verifyTargetProblem(source(), uriFor(SRC))).toMatch(/names the database itself/);
    expect(verifyTargetProblem(source(), uriFor('admin'))).toBeUndefined();
    const run = runVerification({
      source: source(),
      targetUri: uriFor(SRC),
      file,
      masterKey: key,
      expected: summary,
      jobId: JOB,
    });
    await expect(run).rejects.toMatchObject({ code: 'REFUSED' });
    await expect(run).rejects.toBeInstanceOf(PipelineError);
  });

  it('restores on a separate verify target when one is set', async () => {
    const target = await startFerretDB();
    try {
      const result = await runVerification({
        source: source(),
        targetUri: `${target.uri}admin`,
        file,
        masterKey: key,
        expected: summary,
        jobId: JOB,
      });
      expect(result.verified).toBe(true);
      const other = await MongoClient.connect(target.uri);
      try {
        const { databases } = await other.db('admin').admin().listDatabases({ nameOnly: true });
        expect(databases.map((d) => d.name).filter((n) => n.startsWith(SCRATCH_PREFIX))).toEqual([]);
      } finally {
        await other.close();
      }
    } finally {
      await target.stop();
    }
  });
});
