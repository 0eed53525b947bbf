// Backup → change → restore against a real FerretDB with the real mongodump/mongorestore, and the
// ways a restore must refuse to start. The test starts its own FerretDB on a free port.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  createWriteStream,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { BSON, Int32, MongoClient } from 'mongodb';
import { createEncryptor, encryptPayload } from '../crypto/encrypt.js';
import { encodeRecord, sha256Hex } from '../crypto/record.js';
import { decryptFile, verifyFile } from '../crypto/verify.js';
import { buildArchive } from '../testing/archive-builder.js';
import { CHUNK_HEADER_LENGTH, DEFAULT_CHUNK_SIZE, HEADER_LENGTH, TAG_LENGTH } from '../crypto/format.js';
import { generateMasterKey, keyFileText } from '../crypto/key.js';
import { requireOnPath, startFerretDB, type FerretDB } from '../testing/ferretdb.js';
import { runBackup, type BackupResult } from './backup.js';
import { PipelineError } from './errors.js';
import type { Progress, ProgressListener } from './progress.js';
import { runRestore } from './restore.js';
import {
  seedDatabase,
  snapshot as snapshotOf,
  type FreeDoc,
  type Snapshot,
} from '../testing/database-fixtures.js';

jest.setTimeout(180_000);

const SRC = 'shop';
const key = generateMasterKey();
let ferret: FerretDB;
let client: MongoClient;
let dir: string;

beforeAll(async () => {
  // Fails (not skips) with what to install when the binaries are missing.
  requireOnPath('ferretdb', 'mongodump', 'mongorestore');
  ferret = await startFerretDB();
  client = await MongoClient.connect(ferret.uri);
  dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-roundtrip-'));
});

afterAll(async () => {
  await client?.close();
  await ferret?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const uriFor = (db: string) => `${ferret.uri}${encodeURIComponent(db)}`;

const snapshot = (db: string) => snapshotOf(client, db);

function fileSink(file: string): Writable {
  const sink = createWriteStream(file, { mode: 0o600 });
  sink.on('error', () => undefined); // runBackup reports the error itself
  return sink;
}

async function backupTo(file: string, db = SRC, onProgress?: ProgressListener): Promise<BackupResult> {
  const sink = fileSink(file);
  const done = new Promise((resolve) => sink.on('close', resolve));
  const result = await runBackup({ uri: uriFor(db), dbName: db, sink, masterKey: key, onProgress });
  await done;
  return result;
}

// ---------------------------------------------------------------------------------------------

describe('backup and restore round trip (FerretDB, real mongodump/mongorestore)', () => {
  let original: Snapshot;
  let file: string;
  let backup: BackupResult;
  const progress: Array<Progress & { final: boolean }> = [];

  beforeAll(async () => {
    // Enough incompressible data for many 64 KiB chunks and several progress reports.
    await seedDatabase(client, SRC, { events: 4000 });
    original = await snapshot(SRC);
    file = path.join(dir, 'shop.enc.coffer');
    backup = await backupTo(file, SRC, (p, final) => progress.push({ ...p, final: final ?? false }));
  });

  it('seeded what the test claims to cover', () => {
    expect(original.collections).toEqual([
      'customers',
      'dots.in.name',
      'empty',
      'events',
      'with space',
      'ünïcode',
    ]);
    expect(original.documents.customers).toHaveLength(40);
    expect(original.indexes.customers).toEqual([
      { key: { _id: 1 }, name: '_id_' },
      { key: { country: 1, age: -1 }, name: 'country_age' },
      { key: { email: 1 }, name: 'email_unique', unique: true },
      // FerretDB 1.24 accepts `sparse` but does not report it in listIndexes, so mongodump cannot
      // carry it; against MongoDB the flag is listed and round-trips like the others.
      expect.objectContaining({ key: { nickname: 1 }, name: 'nickname_sparse' }),
    ]);
    const doc = BSON.deserialize(Buffer.from(original.documents.customers![0]!, 'hex'), {
      promoteValues: false,
    });
    for (const field of [
      'double',
      'string',
      'object',
      'array',
      'binOld',
      'binUuid',
      'binUser',
      'oid',
      'yes',
      'date',
      'nothing',
      'regex',
      'int32',
      'timestamp',
      'int64',
    ]) {
      expect(doc).toHaveProperty(field);
    }
  });

  it('reports what it backed up and writes only ciphertext', () => {
    expect(backup.documents).toBe(40 + 2 + 2 + 1 + 4000);
    expect(Object.fromEntries(backup.collections.map((c) => [c.name, c.documents]))).toEqual({
      customers: 40,
      'dots.in.name': 2,
      empty: 0,
      events: 4000,
      'with space': 2,
      ünïcode: 1,
    });
    const bytes = readFileSync(file);
    expect(bytes.length).toBe(backup.fileBytes);
    expect(bytes.subarray(0, 6).toString()).toBe('COFFER');
    expect(bytes.includes(Buffer.from('user1@example.com'))).toBe(false);
    expect(bytes.includes(Buffer.from('customers'))).toBe(false);
    expect(Math.ceil((bytes.length - HEADER_LENGTH) / (DEFAULT_CHUNK_SIZE + 20))).toBeGreaterThanOrEqual(5);
  });

  it('reported progress that never goes back, with the real total, ending once at 100 %', () => {
    expect(progress.length).toBeGreaterThanOrEqual(2);
    const last = progress[progress.length - 1]!;
    expect(last).toMatchObject({
      current: backup.documents,
      total: backup.documents,
      percentage: 100,
      estimated: false,
      final: true,
    });
    expect(progress.filter((p) => p.final)).toHaveLength(1);
    for (let i = 1; i < progress.length; i++) {
      expect(progress[i]!.current).toBeGreaterThanOrEqual(progress[i - 1]!.current);
      expect(progress[i]!.percentage).toBeGreaterThanOrEqual(progress[i - 1]!.percentage);
    }
    // Taken once the collection check (beside mongodump) had the counts: FerretDB's are exact.
    expect(progress[0]).toMatchObject({ current: 0, total: backup.documents, percentage: 0 });
    // Only collections of the database are ever named. (Which ones appear depends on how the
    // readings fall in time, so no particular one is required.)
    const named = new Set(progress.map((p) => p.collection).filter(Boolean));
    for (const name of named) expect(original.collections).toContain(name);
  });

  it('restores exactly the snapshot after the data changed: documents byte for byte, indexes, collections', async () => {
    const d = client.db(SRC);
    await d.collection('customers').deleteMany({ country: 'NL' });
    await d.collection('customers').updateMany({}, { $set: { age: new Int32(99) } });
    await d.collection('customers').dropIndex('country_age');
    await d.collection('customers').createIndex({ age: 1 }, { name: 'new_index' });
    await d.collection('events').insertOne({ n: new Int32(-1), payload: 'added later' });
    await d.collection('with space').drop();
    await d.collection('extra').insertOne({ created: 'after the backup' });
    expect(await snapshot(SRC)).not.toEqual(original);

    const seen: Progress[] = [];
    const result = await runRestore({
      uri: uriFor(SRC),
      dbName: SRC,
      file,
      masterKey: key,
      onProgress: (p) => seen.push(p),
    });
    expect(result).toMatchObject({
      restored: backup.documents,
      failed: 0,
      clean: true,
      sourceDb: SRC,
      dropped: ['extra'],
    });
    expect(seen[seen.length - 1]).toMatchObject({
      current: backup.documents,
      total: backup.documents,
      percentage: 100,
      estimated: false,
    });
    // The count of every collection came from the verified file: never an estimate.
    expect(seen.every((p) => p.estimated === false && p.total === backup.documents)).toBe(true);
    expect(await snapshot(SRC)).toEqual(original);
  });

  it('refuses a backup of another database before touching the target (the server chose the file)', async () => {
    await client.db('victim').collection('keep').insertOne({ mine: true });
    const before = await snapshot('victim');
    await expect(
      runRestore({ uri: uriFor('victim'), dbName: 'victim', file, masterKey: key }),
    ).rejects.toMatchObject({
      code: 'WRONG_DATABASE',
      message: expect.stringContaining(`the backup file is of database "${SRC}", not "victim"`),
    });
    expect(await snapshot('victim')).toEqual(before);
  });

  it('restores into another database (nsFrom/nsTo) identically, when asked to on purpose', async () => {
    const result = await runRestore({
      uri: uriFor('shop_copy'),
      dbName: 'shop_copy',
      sourceDb: SRC,
      file,
      masterKey: key,
    });
    expect(result).toMatchObject({ restored: backup.documents, failed: 0, clean: true, sourceDb: SRC });
    expect(await snapshot('shop_copy')).toEqual(original);
  });

  it('a bound (version 2) backup restores in one pass; an archive unlike its record fails the restore', async () => {
    const backupId = '65a1b2c3d4e5f60718293a4c';
    const bound = path.join(dir, 'shop-v2.coffer');
    const sink = fileSink(bound);
    const closed = new Promise((resolve) => sink.on('close', resolve));
    await runBackup({ uri: uriFor(SRC), dbName: SRC, label: SRC, sink, masterKey: key, backupId });
    await closed;
    const seen: Progress[] = [];
    const result = await runRestore({
      uri: uriFor('shop_v2'),
      dbName: 'shop_v2',
      sourceDb: SRC,
      file: bound,
      masterKey: key,
      onProgress: (p) => seen.push(p),
    });
    expect(result).toMatchObject({ restored: backup.documents, failed: 0, clean: true, sourceDb: SRC });
    expect(await snapshot('shop_v2')).toEqual(original);
    // The totals came from the authenticated record, before mongorestore started.
    expect(seen.every((p) => p.estimated === false && p.total === backup.documents)).toBe(true);

    // The same archive, sealed under the key with a record whose digest is another's: a writer bug
    // (only the key's holder can seal one). It authenticates; the one pass finds it, and the
    // restore fails saying the database may be partly restored, since mongorestore had the data.
    const archiveFile = path.join(dir, 'shop-v2.archive');
    await decryptFile(bound, archiveFile, key);
    const archive = readFileSync(archiveFile);
    const { record } = await verifyFile(bound, key);
    const lying = path.join(dir, 'shop-v2-lying.coffer');
    writeFileSync(
      lying,
      encryptPayload(zlib.zstdCompressSync(archive), {
        masterKey: key,
        binding: { label: SRC, backupId },
        recordBytes: () => encodeRecord({ ...record!, archiveSha256: sha256Hex(Buffer.from('other')) }),
      }),
    );
    await expect(
      runRestore({ uri: uriFor('shop_v2b'), dbName: 'shop_v2b', sourceDb: SRC, file: lying, masterKey: key }),
    ).rejects.toMatchObject({
      code: 'BAD_RECORD',
      message: expect.stringMatching(
        /does not match the SHA-256 in its sealed record\. The restore of "shop_v2b" stopped .*may be partly restored/,
      ),
    });
  });

  it('the offline decrypt (TypeScript and docs/decrypt_coffer.py) gives an archive mongorestore restores', async () => {
    const archive = path.join(dir, 'shop.archive');
    await decryptFile(file, archive, key);
    const keyFile = path.join(dir, 'master.key');
    writeFileSync(keyFile, keyFileText(key), { mode: 0o600 });
    const py = spawnSync(
      'python3',
      [
        path.resolve(__dirname, '../../../docs/decrypt_coffer.py'),
        '--key-file',
        keyFile,
        file,
        path.join(dir, 'py.archive'),
      ],
      {
        encoding: 'utf8',
      },
    );
    expect(py.stderr).toBe('');
    expect(readFileSync(path.join(dir, 'py.archive')).equals(readFileSync(archive))).toBe(true);

    const r = spawnSync(
      'mongorestore',
      [`--uri=${ferret.uri}`, `--archive=${archive}`, '--drop', '--nsFrom=shop.*', '--nsTo=shop_plain.*'],
      { encoding: 'utf8' },
    );
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      `${backup.documents} document(s) restored successfully. 0 document(s) failed to restore.`,
    );
    expect(await snapshot('shop_plain')).toEqual(original);
  });

  describe('a restore that must not start leaves the target untouched', () => {
    const TARGET = 'tamper_target';
    let before: Snapshot;
    let good: Buffer;
    beforeAll(async () => {
      await client
        .db(TARGET)
        .collection<FreeDoc>('keep')
        .insertMany([{ _id: 1, v: 'must survive' }, { _id: 2 }]);
      await client.db(TARGET).collection('keep').createIndex({ v: 1 }, { name: 'v_1' });
      before = await snapshot(TARGET);
      good = readFileSync(file);
    });

    const chunk = (i: number) => HEADER_LENGTH + i * (CHUNK_HEADER_LENGTH + DEFAULT_CHUNK_SIZE + TAG_LENGTH);
    const cases: Array<[string, (f: Buffer) => Buffer, string]> = [
      ['a flipped bit', (f) => ((f[Math.floor(f.length / 2)]! ^= 0x10), f), 'CORRUPT_CHUNK'],
      ['truncation inside the last chunk', (f) => f.subarray(0, f.length - 100), 'TRUNCATED'],
      ['truncation at a chunk boundary', (f) => f.subarray(0, chunk(2)), 'TRUNCATED'],
      [
        'two chunks swapped',
        (f) =>
          Buffer.concat([
            f.subarray(0, chunk(1)),
            f.subarray(chunk(2), chunk(3)),
            f.subarray(chunk(1), chunk(2)),
            f.subarray(chunk(3)),
          ]),
        'CORRUPT_CHUNK',
      ],
      ['appended bytes', (f) => Buffer.concat([f, randomBytes(64)]), 'TRAILING_DATA'],
      ['a plain mongodump archive', () => Buffer.from([0x6d, 0xe2, 0x99, 0x81, 5, 0, 0, 0, 0]), 'NOT_COFFER'],
    ];

    it.each(cases)('%s', async (_name, mutate, code) => {
      const bad = path.join(dir, `bad-${code}.coffer`);
      writeFileSync(bad, mutate(Buffer.from(good)));
      await expect(
        runRestore({ uri: uriFor(TARGET), dbName: TARGET, sourceDb: SRC, file: bad, masterKey: key }),
      ).rejects.toMatchObject({ code });
      expect(await snapshot(TARGET)).toEqual(before);
    });

    it('the wrong key', async () => {
      const err = await runRestore({
        uri: uriFor(TARGET),
        dbName: TARGET,
        sourceDb: SRC,
        file,
        masterKey: generateMasterKey(),
      }).catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: 'WRONG_KEY',
        message: expect.stringMatching(
          /^This backup was encrypted with a different key \(fingerprint [0-9a-f]{32}, agent key [0-9a-f]{32}\)\.$/,
        ),
      });
      expect(await snapshot(TARGET)).toEqual(before);
    });

    it('mongorestore missing from PATH', async () => {
      const saved = process.env.PATH;
      process.env.PATH = '/nonexistent';
      try {
        await expect(
          runRestore({ uri: uriFor(TARGET), dbName: TARGET, sourceDb: SRC, file, masterKey: key }),
        ).rejects.toMatchObject({
          code: 'TOOL_MISSING',
          message: expect.stringMatching(
            /mongorestore was not found on PATH\. The agent from your Coffer server brings its own.*Or install the MongoDB Database Tools/,
          ),
        });
      } finally {
        process.env.PATH = saved;
      }
      expect(await snapshot(TARGET)).toEqual(before);
    });

    it('an unreachable server', async () => {
      await expect(
        runRestore({
          uri: 'mongodb://user:pa55word@127.0.0.1:1/x?serverSelectionTimeoutMS=500',
          dbName: TARGET,
          sourceDb: SRC,
          file,
          masterKey: key,
        }),
      ).rejects.toMatchObject({
        code: 'DB_UNREACHABLE',
        message: expect.not.stringContaining('pa55word'),
      });
      expect(await snapshot(TARGET)).toEqual(before);
    });
  });
});

describe('backup failures', () => {
  const DB = 'fail_src';
  beforeAll(async () => {
    await client
      .db(DB)
      .collection('c')
      .insertMany(Array.from({ length: 3000 }, (_, i) => ({ i, pad: randomBytes(200).toString('hex') })));
  });

  function toolDirs(): string[] {
    return readdirSync(os.tmpdir()).filter((n) => n.startsWith('coffer-agent-'));
  }

  it('a failing mongodump destroys the sink with its last stderr lines, redacted, and removes the credentials file', async () => {
    const fake = mkdtempSync(path.join(os.tmpdir(), 'coffer-fake-tools-'));
    writeFileSync(
      path.join(fake, 'mongodump'),
      '#!/bin/sh\nprintf "partial archive bytes"\necho "2026-01-01T00:00:00.000+0000\tFailed: error connecting to mongodb://backup:hunter2@db.internal:27017/?authSource=admin" >&2\nexit 1\n',
    );
    chmodSync(path.join(fake, 'mongodump'), 0o755);
    const saved = process.env.PATH;
    process.env.PATH = `${fake}${path.delimiter}${saved}`;
    const beforeDirs = toolDirs();
    const chunks: Buffer[] = [];
    let finished = false;
    let sinkError: Error | undefined;
    const sink = new Writable({ write: (c: Buffer, _e, cb) => (chunks.push(c), cb()) });
    sink.on('finish', () => (finished = true));
    sink.on('error', (e) => (sinkError = e));
    try {
      const err = (await runBackup({ uri: uriFor(DB), dbName: DB, sink, masterKey: key }).catch(
        (e: unknown) => e,
      )) as PipelineError;
      expect(err).toBeInstanceOf(PipelineError);
      expect(err.code).toBe('TOOL_FAILED');
      expect(err.message).toBe(
        'mongodump exited with code 1: Failed: error connecting to mongodb://backup:****@db.internal:27017/?authSource=admin',
      );
      expect(err.message).not.toContain('hunter2');
    } finally {
      process.env.PATH = saved;
      rmSync(fake, { recursive: true, force: true });
    }
    await new Promise((r) => setImmediate(r));
    expect(finished).toBe(false);
    expect(sink.destroyed).toBe(true);
    expect(sinkError?.message).toMatch(/mongodump exited with code 1/);
    // No chunk reached the sink (at most the header): nothing that could pass for a backup.
    expect(Buffer.concat(chunks).length).toBeLessThanOrEqual(HEADER_LENGTH);
    expect(toolDirs()).toEqual(beforeDirs);
  });

  it('a failing upload stops mongodump and rejects with the upload error', async () => {
    let writes = 0;
    const sink = new Writable({
      // The header passes; the first sealed piece (all the chunks of a zstd frame) fails.
      write: (_c, _e, cb) => (++writes > 1 ? cb(new Error('upload failed: 503')) : cb()),
    });
    sink.on('error', () => undefined);
    await expect(runBackup({ uri: uriFor(DB), dbName: DB, sink, masterKey: key })).rejects.toThrow(
      'upload failed: 503',
    );
    expect(sink.destroyed).toBe(true);
  });

  it('can be cancelled', async () => {
    const ac = new AbortController();
    const sink = new Writable({ write: (_c, _e, cb) => setTimeout(cb, 20) });
    sink.on('error', () => undefined);
    setTimeout(() => ac.abort(), 300);
    await expect(
      runBackup({ uri: uriFor(DB), dbName: DB, sink, masterKey: key, signal: ac.signal }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
    expect(sink.destroyed).toBe(true);
  });

  it('refuses an unreachable server, a hostile name and a missing mongodump before writing anything', async () => {
    for (const [opts, code] of [
      [{ uri: 'mongodb://127.0.0.1:1/x?serverSelectionTimeoutMS=500', dbName: 'x' }, 'DB_UNREACHABLE'],
      [{ uri: uriFor(DB), dbName: 'bad name' }, 'INVALID_NAME'],
    ] as const) {
      const chunks: Buffer[] = [];
      const sink = new Writable({ write: (c: Buffer, _e, cb) => (chunks.push(c), cb()) });
      sink.on('error', () => undefined);
      await expect(runBackup({ ...opts, sink, masterKey: key })).rejects.toMatchObject({ code });
      expect(chunks).toEqual([]);
      expect(sink.destroyed).toBe(true);
    }
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const sink = new Writable({ write: (_c, _e, cb) => cb() });
      sink.on('error', () => undefined);
      await expect(runBackup({ uri: uriFor(DB), dbName: DB, sink, masterKey: key })).rejects.toMatchObject({
        code: 'TOOL_MISSING',
      });
    } finally {
      process.env.PATH = saved;
    }
  });
});

describe('restore results', () => {
  it('a backup of an empty database restores to an empty database', async () => {
    const file = path.join(dir, 'nothing.coffer');
    const b = await backupTo(file, 'never_created');
    expect(b).toMatchObject({ documents: 0, collections: [] });
    await client.db('becomes_empty').collection('old').insertOne({ stale: true });
    const r = await runRestore({ uri: ferret.uri, dbName: 'becomes_empty', file, masterKey: key });
    expect(r).toMatchObject({ restored: 0, failed: 0, clean: true, sourceDb: undefined, dropped: ['old'] });
    expect((await snapshot('becomes_empty')).collections).toEqual([]);
  });

  it('a bound backup records its archive; empty over data is refused, then restored once confirmed', async () => {
    const backupId = '65a1b2c3d4e5f60718293a4b';
    const file = path.join(dir, 'bound-empty.coffer');
    const sink = fileSink(file);
    const closed = new Promise((resolve) => sink.on('close', resolve));
    await runBackup({
      uri: uriFor('still_empty'),
      dbName: 'still_empty',
      label: 'fresh',
      sink,
      masterKey: key,
      backupId,
    });
    await closed;
    const verified = await verifyFile(file, key);
    expect(verified).toMatchObject({ version: 2, binding: { label: 'fresh', backupId } });
    expect(verified.record).toMatchObject({ namespaces: [] });

    await client
      .db('now_full')
      .collection('orders')
      .insertMany([{ n: 1 }, { n: 2 }]);
    const restore = (confirm: Array<'empty-backup'>) =>
      runRestore({
        uri: ferret.uri,
        dbName: 'now_full',
        label: 'fresh',
        file,
        masterKey: key,
        sourceDb: 'still_empty',
        guard: {
          policy: { allowed: true, requireBinding: true },
          request: { label: 'fresh', backupId, confirm },
        },
      });
    await expect(restore([])).rejects.toMatchObject({
      code: 'REFUSED',
      message: expect.stringContaining('this backup holds no documents'),
    });
    expect((await snapshot('now_full')).collections).toEqual(['orders']);
    await expect(restore(['empty-backup'])).resolves.toMatchObject({ restored: 0, dropped: ['orders'] });
    expect((await snapshot('now_full')).collections).toEqual([]);
  });

  it('a restore with failed documents is reported as not clean', async () => {
    // A real dump cannot hold duplicate _ids; a hand-built archive can.
    const archive = buildArchive('dupsrc', [
      { name: 'c', documents: [{ _id: 1, v: 'first' }, { _id: 1, v: 'duplicate' }, { _id: 2 }] },
      { name: 'e', documents: [] },
    ]);
    const file = path.join(dir, 'dup.coffer');
    const { stream } = createEncryptor({ masterKey: key });
    await pipeline(Readable.from([archive]), stream, createWriteStream(file));
    const r = await runRestore({
      uri: ferret.uri,
      dbName: 'dupdst',
      sourceDb: 'dupsrc',
      file,
      masterKey: key,
    });
    expect(r).toMatchObject({ restored: 2, failed: 1, clean: false, sourceDb: 'dupsrc' });
    expect(r.collections).toEqual([
      { name: 'c', documents: 3 },
      { name: 'e', documents: 0 },
    ]);
  });
});

describe('hostile database names end to end', () => {
  it('backs up "-rf" and restores it into "-rf-copy" (names that look like options)', async () => {
    await client
      .db('-rf')
      .collection('x')
      .insertMany([{ a: 1 }, { a: 2 }]);
    const file = path.join(dir, 'dash.coffer');
    const b = await backupTo(file, '-rf');
    expect(b.documents).toBe(2);
    const r = await runRestore({
      uri: ferret.uri,
      dbName: '-rf-copy',
      sourceDb: '-rf',
      file,
      masterKey: key,
    });
    expect(r).toMatchObject({ restored: 2, clean: true, sourceDb: '-rf' });
    expect((await snapshot('-rf-copy')).documents).toEqual((await snapshot('-rf')).documents);
  });
});
