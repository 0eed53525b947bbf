import { memoryBackend } from '../backends/memory.fake';
import { fakeBlobStore } from '../store.fake';
import type { BlobRecord } from '../store';
import { cleanup } from './cleanup';

const USER = '64b7f0c2a1b2c3d4e5f60718';
const T0 = new Date('2025-06-01T10:00:00Z');
const log = { info: jest.fn(), warn: jest.fn() };

async function leftOver(
  store: ReturnType<typeof fakeBlobStore>,
  mem: ReturnType<typeof memoryBackend>,
  blobId: string,
  status: BlobRecord['status'],
  touchedAt: Date,
) {
  const uploadId = blobId.slice(-16);
  const objectKey = `${USER}/${blobId}/${uploadId}`;
  const w = await mem.backend.createWriter(objectKey);
  await store.reserve({
    userId: USER,
    blobId,
    uploadId,
    backend: 'fs',
    objectKey,
    keyFingerprint: '',
    touchedAt,
  });
  await store.setUploadRef({ userId: USER, blobId, uploadId }, w.ref, touchedAt);
  if (status === 'deleting') await store.markDeleting({ userId: USER, blobId, uploadId }, touchedAt);
  return w.ref;
}

describe('cleanup sweep', () => {
  it('removes dead uploads and unfinished deletions, and leaves live uploads and committed blobs alone', async () => {
    const store = fakeBlobStore();
    const mem = memoryBackend();
    const now = new Date(T0.getTime() + 15 * 60_000);
    const dead = await leftOver(store, mem, '65a1b2c3d4e5f60718290001', 'uploading', T0);
    const deleting = await leftOver(store, mem, '65a1b2c3d4e5f60718290002', 'deleting', T0);
    const live = await leftOver(
      store,
      mem,
      '65a1b2c3d4e5f60718290003',
      'uploading',
      new Date(now.getTime() - 1000),
    );
    const committedKey = { userId: USER, blobId: '65a1b2c3d4e5f60718290004', uploadId: '18290004aaaaaaaa' };
    await store.reserve({
      ...committedKey,
      backend: 'fs',
      objectKey: 'k',
      keyFingerprint: '',
      touchedAt: T0,
    });
    await store.commit(committedKey, { size: 5, sha256: 'x', createdAt: T0 });

    const c = cleanup({ store, backend: mem.backend, log, staleAfterMs: 10 * 60_000, now: () => now });
    await expect(c.sweep()).resolves.toEqual({ records: 2, orphans: 0 });
    expect(mem.calls).toEqual(expect.arrayContaining([`discard ${dead}`, `discard ${deleting}`]));
    expect(mem.calls).not.toContain(`discard ${live}`);
    expect(store.all.map((r) => r.blobId).sort()).toEqual([
      '65a1b2c3d4e5f60718290003',
      '65a1b2c3d4e5f60718290004',
    ]);
    expect([...mem.uploads.keys()]).toEqual([live]);
  });

  it('discards old backend uploads that no document knows (a crash before the ref was recorded)', async () => {
    const store = fakeBlobStore();
    const mem = memoryBackend();
    await mem.backend.createWriter(`${USER}/65a1b2c3d4e5f60718290009/aaaaaaaaaaaaaaaa`);
    const c = cleanup({
      store,
      backend: mem.backend,
      log,
      staleAfterMs: 60_000,
      now: () => new Date(Date.now() + 120_000),
    });
    await expect(c.sweep()).resolves.toEqual({ records: 0, orphans: 1 });
    expect(mem.uploads.size).toBe(0);
    // A fresh one is left alone: its writer may record the ref any moment.
    await mem.backend.createWriter(`${USER}/65a1b2c3d4e5f60718290009/bbbbbbbbbbbbbbbb`);
    const c2 = cleanup({ store, backend: mem.backend, log, staleAfterMs: 60_000 });
    await expect(c2.sweep()).resolves.toEqual({ records: 0, orphans: 0 });
  });

  it('claims a left-over once when two replicas sweep together', async () => {
    const store = fakeBlobStore();
    const mem = memoryBackend();
    await leftOver(store, mem, '65a1b2c3d4e5f60718290001', 'uploading', T0);
    const opts = {
      store,
      backend: mem.backend,
      log,
      staleAfterMs: 60_000,
      now: () => new Date(T0.getTime() + 3_600_000),
    };
    const [a, b] = await Promise.all([cleanup(opts).sweep(), cleanup(opts).sweep()]);
    expect(a.records + b.records).toBe(1);
  });
});
