import { memoryBackend } from '../backends/memory.fake';
import { fakeBlobStore } from '../store.fake';
import { blobs } from './blobs';
import { cleanup } from './cleanup';
import { uploads } from './uploads';

// Storage's own guard of the retention lock: it is all the fs backend has (S3 adds Object Lock).

const ALICE = '64b7f0c2a1b2c3d4e5f60718';
const B1 = '65a1b2c3d4e5f60718290001';
const B2 = '65a1b2c3d4e5f60718290002';
const log = { info: jest.fn(), warn: jest.fn(), error: jest.fn() };
const T0 = new Date('2026-03-01T12:00:00Z');
const LOCKED_UNTIL = new Date('2026-03-08T12:00:00Z');

async function setup() {
  let t = T0.getTime();
  const clock = { now: () => new Date(t), set: (d: Date) => (t = d.getTime()) };
  const store = fakeBlobStore();
  const mem = memoryBackend();
  const clean = cleanup({ store, backend: mem.backend, log, staleAfterMs: 60_000, now: clock.now });
  const up = uploads({
    store,
    backend: mem.backend,
    cleanup: clean,
    events: { publish: jest.fn() },
    log,
    staleAfterMs: 60_000,
    heartbeatMs: 10_000,
    now: clock.now,
  });
  const put = (blobId: string, lockedUntil: Date | null) =>
    up.put(
      { userId: ALICE, blobId, storageLimit: 0, keyFingerprint: 'fp', lockedUntil },
      (async function* () {
        yield Buffer.from('ciphertext');
      })(),
    );
  await put(B1, LOCKED_UNTIL);
  await put(B2, null);
  const b = blobs({ store, backend: mem.backend, cleanup: clean, log, now: clock.now });
  return { store, clean, b, clock };
}

describe('blobs under the retention lock', () => {
  it('keep their lock date, and refuse deletion before it naming the date (409 BACKUP_LOCKED)', async () => {
    const { b, clock } = await setup();
    await expect(b.stat(ALICE, B1)).resolves.toMatchObject({ lockedUntil: LOCKED_UNTIL });
    await expect(b.remove(ALICE, B1)).rejects.toMatchObject({
      kind: 'CONFLICT',
      code: 'BACKUP_LOCKED',
      message: expect.stringContaining('locked until Mar 8, 2026, 12:00 UTC by your retention lock'),
      details: { lockedUntil: LOCKED_UNTIL.toISOString() },
    });
    await b.remove(ALICE, B2); // not locked: goes at once
    await expect(b.usage(ALICE)).resolves.toEqual({ bytesUsed: 10, blobCount: 1 });
    clock.set(LOCKED_UNTIL);
    await b.remove(ALICE, B1);
    await expect(b.usage(ALICE)).resolves.toEqual({ bytesUsed: 0, blobCount: 0 });
  });

  it("stay when their owner's account is deleted, until the sweep removes them after the date", async () => {
    const { b, clean, clock, store } = await setup();
    await expect(b.removeUser(ALICE)).resolves.toBe(1);
    expect(store.all.map((r) => r.blobId)).toEqual([B1]);
    await clean.sweep();
    expect(store.all.map((r) => r.blobId)).toEqual([B1]);
    clock.set(LOCKED_UNTIL);
    await expect(clean.sweep()).resolves.toMatchObject({ records: 1 });
    expect(store.all).toEqual([]);
  });
});
