import { text } from 'node:stream/consumers';
import { memoryBackend } from '../backends/memory.fake';
import { fakeBlobStore } from '../store.fake';
import { blobs } from './blobs';
import { cleanup } from './cleanup';
import { uploads } from './uploads';

const ALICE = '64b7f0c2a1b2c3d4e5f60718';
const BOB = '64b7f0c2a1b2c3d4e5f60719';
const B1 = '65a1b2c3d4e5f60718290001';
const B2 = '65a1b2c3d4e5f60718290002';
const log = { info: jest.fn(), warn: jest.fn(), error: jest.fn() };

async function setup() {
  const store = fakeBlobStore();
  const mem = memoryBackend();
  const clean = cleanup({ store, backend: mem.backend, log, staleAfterMs: 60_000 });
  const up = uploads({
    store,
    backend: mem.backend,
    cleanup: clean,
    events: { publish: jest.fn() },
    log,
    staleAfterMs: 60_000,
    heartbeatMs: 10_000,
  });
  const put = (userId: string, blobId: string, body: string) =>
    up.put(
      { userId, blobId, storageLimit: 0, keyFingerprint: 'fp' },
      (async function* () {
        yield Buffer.from(body);
      })(),
    );
  await put(ALICE, B1, 'alice-one');
  await put(ALICE, B2, 'alice-two!');
  await put(BOB, B1, 'bob');
  return { store, mem, b: blobs({ store, backend: mem.backend, cleanup: clean, log }) };
}

describe('blobs', () => {
  it('reads back a blob of its owner only; another user’s blob is not found', async () => {
    const { b } = await setup();
    const { record, body } = await b.open(ALICE, B1);
    expect(record).toMatchObject({ size: 9, keyFingerprint: 'fp' });
    await expect(text(body)).resolves.toBe('alice-one');
    await expect(b.stat(BOB, B2)).rejects.toMatchObject({
      kind: 'NOT_FOUND',
      message: 'Backup file not found',
    });
    await expect(b.open(BOB, B2)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });

  it('a backend that cannot give a stored blob back is a 503 the reader can act on', async () => {
    const { store, mem } = await setup();
    const failing = (err: Error) =>
      blobs({
        store,
        backend: { read: () => Promise.reject(err) },
        cleanup: cleanup({ store, backend: mem.backend, log, staleAfterMs: 60_000 }),
        log,
      });
    const s3 = Object.assign(new Error('We encountered an internal error'), {
      $metadata: { httpStatusCode: 503 },
    });
    await expect(failing(s3).open(ALICE, B1)).rejects.toMatchObject({
      kind: 'UNAVAILABLE',
      message:
        'The backup file could not be read from storage right now (S3 answered HTTP 503). Please try again shortly.',
    });
    // Anything else stays what it is (the gateway answers 'Internal error' and the log has it).
    const bug = new TypeError('x is undefined');
    await expect(failing(bug).open(ALICE, B1)).rejects.toBe(bug);
  });

  it('deletes data and metadata, drops usage, and deleting again is fine', async () => {
    const { b, mem } = await setup();
    await expect(b.usage(ALICE)).resolves.toEqual({ bytesUsed: 19, blobCount: 2 });
    const { record } = await b.open(ALICE, B1);
    await b.remove(ALICE, B1);
    await b.remove(ALICE, B1);
    expect(mem.objects.has(record.objectKey)).toBe(false);
    await expect(b.usage(ALICE)).resolves.toEqual({ bytesUsed: 10, blobCount: 1 });
    await expect(b.stat(ALICE, B1)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    // Bob's blob with the same id is untouched.
    await expect(b.stat(BOB, B1)).resolves.toMatchObject({ size: 3 });
  });

  it('removes every blob of a deleted user, idempotently', async () => {
    const { b, mem } = await setup();
    await expect(b.removeUser(ALICE)).resolves.toBe(2);
    await expect(b.removeUser(ALICE)).resolves.toBe(0);
    await expect(b.usage(ALICE)).resolves.toEqual({ bytesUsed: 0, blobCount: 0 });
    expect(mem.objects.size).toBe(1);
  });
});
