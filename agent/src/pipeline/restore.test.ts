// The restore's verification over a byte stream (what the agent runs while it downloads) against
// the same verification over a file, and a restore that is handed that verification. The restore
// runs with its archive into a discarding sink (`discardArchive`), so no database is needed: what is checked is
// the file handling in front of mongorestore.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { encryptPayload } from '../crypto/encrypt.js';
import { CHUNK_HEADER_LENGTH, Compression, HEADER_LENGTH, TAG_LENGTH } from '../crypto/format.js';
import { generateMasterKey } from '../crypto/key.js';
import { encodeRecord, sha256Hex } from '../crypto/record.js';
import { buildArchive } from '../testing/archive-builder.js';
import { createRestoreVerifier, runRestore, type RestoreResult, type VerifiedBackup } from './restore.js';

const key = generateMasterKey();
let dir: string;
let good: Buffer;
let goodFile: string;

// Several chunks, so damage can sit in the middle of the file.
const archive = buildArchive('shop', [
  { name: 'orders', documents: Array.from({ length: 3000 }, (_, i) => ({ _id: i, pad: randomBytes(64) })) },
  { name: 'empty', documents: [] },
]);

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-restore-verify-'));
  good = encryptPayload(archive, { masterKey: key, compression: Compression.None, chunkSize: 16 * 1024 });
  goodFile = path.join(dir, 'good.coffer');
  writeFileSync(goodFile, good);
});
afterAll(() => {
  jest.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Feeds `bytes` to a fresh verifier in pieces of `piece` bytes, as a download would: each piece in
 * a later turn of the event loop, the way a socket delivers them.
 */
async function verifyBytes(bytes: Buffer, masterKey = key, piece = 1000) {
  const verifier = createRestoreVerifier(masterKey);
  async function* pieces() {
    for (let at = 0; at < bytes.length; at += piece) {
      await new Promise(setImmediate);
      yield bytes.subarray(at, at + piece);
    }
  }
  const written = pipeline(Readable.from(pieces()), verifier.sink).then(
    () => undefined,
    (e: unknown) => e,
  );
  const result = await verifier.result.catch((e: unknown) => e as Error);
  return { result, written: await written, sink: verifier.sink };
}

const restoreFile = (file: string, verified?: VerifiedBackup, masterKey = key) =>
  runRestore({
    uri: 'mongodb://127.0.0.1:1/',
    dbName: 'shop',
    file,
    masterKey,
    ...(verified ? { verified } : {}),
    discardArchive: true,
  });

/** Counts the bytes runRestore reads from the file through the handle it opens. */
function countReads(): { bytes: () => number } {
  let bytes = 0;
  const open = fsp.open.bind(fsp);
  jest.spyOn(fsp, 'open').mockImplementation(async (...args: Parameters<typeof fsp.open>) => {
    const handle: FileHandle = await open(...args);
    const read = handle.read.bind(handle) as (...a: unknown[]) => Promise<{ bytesRead: number }>;
    (handle as unknown as { read: unknown }).read = async (...a: unknown[]) => {
      const r = await read(...a);
      bytes += r.bytesRead;
      return r;
    };
    return handle;
  });
  return { bytes: () => bytes };
}
afterEach(() => jest.mocked(fsp.open).mockRestore?.());

describe('createRestoreVerifier', () => {
  it('reports what a good file holds, in any slicing, the same as the restore of the file', async () => {
    const expected = {
      fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
      compression: Compression.None,
      sourceDb: 'shop',
      collections: [
        { name: 'orders', documents: 3000 },
        { name: 'empty', documents: 0 },
      ],
      documents: 3000,
      fileBytes: good.length,
    };
    for (const piece of [61, 977, good.length]) {
      const { result, written } = await verifyBytes(good, key, piece);
      expect(written).toBeUndefined();
      expect(result).toEqual(expected);
    }
    const restored = await restoreFile(goodFile);
    const { result } = await verifyBytes(good);
    expect(restored).toMatchObject({
      sourceDb: 'shop',
      collections: (result as VerifiedBackup).collections,
      fingerprint: (result as VerifiedBackup).fingerprint,
      restored: 3000,
    });
  });

  it('verifies a zstd-compressed file (the decompressor is chosen from the header)', async () => {
    const { createEncryptor } = await import('../crypto/encrypt.js');
    const { stream } = createEncryptor({ masterKey: key });
    const parts: Buffer[] = [];
    await pipeline(Readable.from([archive]), stream, async (src: AsyncIterable<Buffer>) => {
      for await (const c of src) parts.push(c);
    });
    const { result } = await verifyBytes(Buffer.concat(parts));
    expect(result).toMatchObject({ compression: Compression.Zstd, sourceDb: 'shop', documents: 3000 });
  });

  const flip = (f: Buffer, at: number) => {
    const copy = Buffer.from(f);
    copy[at]! ^= 0x10;
    return copy;
  };
  const chunk = (i: number) => HEADER_LENGTH + i * (CHUNK_HEADER_LENGTH + 16 * 1024 + TAG_LENGTH);
  /** name, file, code, and whether the failure can only be known after the last byte was taken. */
  const cases: Array<[string, () => Buffer, string, 'at end'?]> = [
    ['a flipped bit', () => flip(good, chunk(3) + 40), 'CORRUPT_CHUNK'],
    ['truncation inside the last chunk', () => good.subarray(0, good.length - 100), 'TRUNCATED'],
    ['truncation at a chunk boundary', () => good.subarray(0, chunk(2)), 'TRUNCATED'],
    [
      'two chunks swapped',
      () =>
        Buffer.concat([
          good.subarray(0, chunk(1)),
          good.subarray(chunk(2), chunk(3)),
          good.subarray(chunk(1), chunk(2)),
          good.subarray(chunk(3)),
        ]),
      'CORRUPT_CHUNK',
    ],
    ['appended bytes', () => Buffer.concat([good, randomBytes(64)]), 'TRAILING_DATA'],
    ['an empty file', () => Buffer.alloc(0), 'NOT_COFFER'],
    ['a plain mongodump archive', () => archive, 'NOT_COFFER'],
    [
      'a Coffer file whose payload is not an archive',
      () =>
        encryptPayload(randomBytes(300_000), {
          masterKey: key,
          compression: Compression.None,
          chunkSize: 16 * 1024,
        }),
      'BAD_ARCHIVE',
    ],
    [
      'a Coffer file whose zstd payload is not zstd',
      () =>
        encryptPayload(randomBytes(300_000), {
          masterKey: key,
          compression: Compression.Zstd,
          chunkSize: 16 * 1024,
        }),
      'BAD_PAYLOAD',
    ],
    [
      'a Coffer file whose zstd payload is cut short',
      () =>
        encryptPayload(zlib.zstdCompressSync(archive).subarray(0, -20), {
          masterKey: key,
          compression: Compression.Zstd,
          chunkSize: 16 * 1024,
        }),
      'BAD_PAYLOAD',
      'at end',
    ],
  ];

  it.each(cases)(
    '%s: fails the sink and the result with the restore’s own error',
    // A rest parameter: a fourth named one would make jest wait for a `done` callback.
    async (name, bytes, code, ...atEnd) => {
      const bad = bytes();
      const file = path.join(dir, `bad-${name.replace(/\W+/g, '-')}.coffer`);
      writeFileSync(file, bad);
      const fromFile = (await restoreFile(file).catch((e: unknown) => e)) as Error & { code: string };
      expect(fromFile).toMatchObject({ code });
      const { result, written, sink } = await verifyBytes(bad);
      expect(result).toMatchObject({ code, message: fromFile.message, constructor: fromFile.constructor });
      // What the writer (the download) sees is that very error, not a stream's generic one; a bad
      // payload stops the writer too, long before its 300 kB are written.
      expect(written).toBe(atEnd.length ? undefined : result);
      if (!atEnd.length) expect(sink.errored).toBe(result);
    },
  );

  it('the wrong key fails at the header, with the message of a restore of the file', async () => {
    const other = generateMasterKey();
    const fromFile = (await restoreFile(goodFile, undefined, other).catch((e: unknown) => e)) as Error;
    expect(fromFile).toMatchObject({
      code: 'WRONG_KEY',
      message: expect.stringMatching(
        /^This backup was encrypted with a different key \(fingerprint [0-9a-f]{32}, agent key [0-9a-f]{32}\)\.$/,
      ),
    });
    // Only the header is needed to know it: the sink fails before the rest of the file is sent.
    const verifier = createRestoreVerifier(other);
    verifier.sink.on('error', () => undefined);
    verifier.sink.write(good.subarray(0, HEADER_LENGTH));
    await expect(verifier.result).rejects.toMatchObject({ code: 'WRONG_KEY', message: fromFile.message });
    expect(verifier.sink.errored).toMatchObject({ code: 'WRONG_KEY' });
  });

  it('a writer that gives up (its download failed) fails the result with its reason', async () => {
    const verifier = createRestoreVerifier(key);
    verifier.sink.write(good.subarray(0, chunk(2) + 10));
    const cut = new Error('The download was cut off');
    verifier.sink.destroy(cut);
    await expect(verifier.result).rejects.toBe(cut);
  });
});

describe('runRestore with a verification made while downloading', () => {
  it('reads the file once instead of twice, with the same result', async () => {
    const twice = countReads();
    const alone = await restoreFile(goodFile);
    expect(twice.bytes()).toBe(2 * good.length);
    jest.mocked(fsp.open).mockRestore();

    const { result } = await verifyBytes(good);
    const once = countReads();
    const handed = await restoreFile(goodFile, result as VerifiedBackup);
    expect(once.bytes()).toBe(good.length);
    const untimed = (r: RestoreResult) => ({ ...r, durationMs: 0, phases: undefined });
    expect(untimed(handed)).toEqual(untimed(alone));
  });

  it('still refuses a backup of another database before anything is touched', async () => {
    const other = encryptPayload(buildArchive('victim', [{ name: 'c', documents: [{ _id: 1 }] }]), {
      masterKey: key,
      compression: Compression.None,
    });
    const file = path.join(dir, 'other.coffer');
    writeFileSync(file, other);
    const { result } = await verifyBytes(other);
    await expect(restoreFile(file, result as VerifiedBackup)).rejects.toMatchObject({
      code: 'WRONG_DATABASE',
      message: expect.stringContaining('the backup file is of database "victim", not "shop"'),
    });
  });

  it('refuses a file that is not the length that was verified', async () => {
    const { result } = await verifyBytes(good);
    const file = path.join(dir, 'grown.coffer');
    writeFileSync(file, Buffer.concat([readFileSync(goodFile), randomBytes(10)]));
    await expect(restoreFile(file, result as VerifiedBackup)).rejects.toMatchObject({
      code: 'BAD_ARCHIVE',
      message: expect.stringContaining('The backup file changed after it was verified'),
    });
  });
});

describe('version 2: authenticated during the download, then one pass into the restore', () => {
  const BACKUP = '65a1b2c3d4e5f60718293a4b';
  const namespaces = [
    { ns: 'shop.orders', documents: 3000 },
    { ns: 'shop.empty', documents: 0 },
  ];
  const record = (over: Partial<Parameters<typeof encodeRecord>[0]> = {}, source = archive) =>
    encodeRecord({ archiveBytes: source.length, archiveSha256: sha256Hex(source), namespaces, ...over });
  /** `payload` sealed under the key as a bound file, with the record `recordBytes`. */
  function bound(payload: Buffer, recordBytes: Buffer, compression = Compression.Zstd): string {
    const file = path.join(dir, `v2-${randomBytes(4).toString('hex')}.coffer`);
    writeFileSync(
      file,
      encryptPayload(payload, {
        masterKey: key,
        compression,
        chunkSize: 16 * 1024,
        binding: { label: 'shop', backupId: BACKUP },
        recordBytes: () => recordBytes,
      }),
    );
    return file;
  }
  const zstd = (b: Buffer) => zlib.zstdCompressSync(b);

  it('knows what the file holds from its record, and restores it reading the file once', async () => {
    const file = bound(zstd(archive), record());
    const { result } = await verifyBytes(readFileSync(file));
    // The same as the walk of a version 1 file of this archive finds, without decompressing.
    const v1 = (await verifyBytes(good)).result as VerifiedBackup;
    expect(result).toMatchObject({
      sourceDb: v1.sourceDb,
      collections: v1.collections,
      documents: v1.documents,
      binding: { label: 'shop', backupId: BACKUP },
    });
    const reads = countReads();
    const restored = await restoreFile(file, result as VerifiedBackup);
    expect(reads.bytes()).toBe(readFileSync(file).length);
    expect(restored).toMatchObject({ restored: 3000, sourceDb: 'shop' });
  });

  it('a damaged bound file fails the verification at its chunk, and nothing else fails', async () => {
    const bytes = readFileSync(bound(zstd(archive), record()));
    bytes[bytes.length >> 1]! ^= 0x10;
    const { result, written, sink } = await verifyBytes(bytes);
    expect(result).toMatchObject({ code: 'CORRUPT_CHUNK' });
    expect(written).toBe(result);
    expect(sink.errored).toBe(result);
    await new Promise(setImmediate); // an 'error' without a listener would surface here
  });

  // Each file below authenticates whole: only the one pass, after the verification, can tell.
  it.each<[string, () => string, string, RegExp]>([
    ['a payload that is not zstd', () => bound(archive, record()), 'BAD_PAYLOAD', /zstd data is invalid/],
    [
      'a zstd payload cut short',
      () => bound(zstd(archive).subarray(0, -30), record()),
      'BAD_PAYLOAD',
      /ends inside frame 1/,
    ],
    [
      'an archive of another SHA-256 than its record says',
      () => bound(zstd(archive), record({ archiveSha256: sha256Hex(Buffer.from('another')) })),
      'BAD_RECORD',
      /does not match the SHA-256 in its sealed record/,
    ],
    [
      'an archive of another length than its record says',
      () => bound(zstd(archive), record({ archiveBytes: archive.length + 1 })),
      'BAD_RECORD',
      /its archive is \d+ bytes where its sealed record says/,
    ],
    [
      'an archive of other counts than its record says',
      () => bound(zstd(archive), record({ namespaces: [{ ns: 'shop.orders', documents: 2999 }] })),
      'BAD_RECORD',
      /collections or document counts differ from its sealed record/,
    ],
    [
      'an archive with documents under a record of an empty database',
      () => bound(zstd(archive), record({ namespaces: [] })),
      'BAD_RECORD',
      /collections or document counts differ from its sealed record/,
    ],
  ])('%s: passes the verification, fails the restore with %s', async (_name, make, code, message) => {
    const file = make();
    const { result } = await verifyBytes(readFileSync(file));
    expect(result).toMatchObject({ binding: { label: 'shop', backupId: BACKUP } });
    await expect(restoreFile(file, result as VerifiedBackup)).rejects.toMatchObject({ code, message });
    await expect(restoreFile(file)).rejects.toMatchObject({ code, message }); // the CLI's path
  });
});
