import { createHash } from 'node:crypto';
import { AppError } from '@coffer/common';
import { memoryBackend } from '../backends/memory.fake';
import { fakeBlobStore } from '../store.fake';
import { cleanup } from './cleanup';
import { backendFailure, uploads, type PutHeader } from './uploads';

const KiB = 1024;
const MiB = 1024 * KiB;
const USER = '64b7f0c2a1b2c3d4e5f60718';
const BLOB = '65a1b2c3d4e5f60718293a4b';
const silent = { info: jest.fn(), warn: jest.fn(), error: jest.fn() };

function setup(opts: Parameters<typeof memoryBackend>[0] & { holdStepBytes?: number } = {}) {
  const store = fakeBlobStore();
  const mem = memoryBackend(opts);
  const events = { publish: jest.fn().mockResolvedValue(undefined) };
  let clock = new Date('2025-06-01T10:00:00Z');
  const now = () => clock;
  const clean = cleanup({ store, backend: mem.backend, log: silent, staleAfterMs: 600_000, now });
  const up = uploads({
    store,
    backend: mem.backend,
    cleanup: clean,
    events,
    log: silent,
    staleAfterMs: 600_000,
    heartbeatMs: 60_000,
    holdStepBytes: opts.holdStepBytes,
    now,
  });
  return { store, mem, events, up, clean, advance: (ms: number) => (clock = new Date(clock.getTime() + ms)) };
}

const header = (over: Partial<PutHeader> = {}): PutHeader => ({
  userId: USER,
  blobId: BLOB,
  storageLimit: 0,
  keyFingerprint: 'fp-1',
  ...over,
});

/** A source of `count` chunks of `size` bytes that counts how many chunks were pulled. */
function source(count: number, size: number, fail?: { at: number; error: Error }) {
  const state = { pulled: 0 };
  async function* gen() {
    for (let i = 0; i < count; i++) {
      if (fail && i === fail.at) throw fail.error;
      state.pulled++;
      yield Buffer.alloc(size, i % 251);
    }
  }
  return { chunks: gen(), state };
}

async function commitExisting(s: ReturnType<typeof setup>, blobId: string, size: number) {
  await s.up.put(header({ blobId }), source(1, size).chunks);
}

describe('uploads', () => {
  it('stores the bytes, records size and sha256, and counts them only once committed', async () => {
    const s = setup();
    const src = source(3, 300 * KiB);
    const rec = await s.up.put(header(), src.chunks);
    const expected = Buffer.concat([0, 1, 2].map((i) => Buffer.alloc(300 * KiB, i)));
    expect(rec).toMatchObject({ status: 'committed', size: 900 * KiB, keyFingerprint: 'fp-1' });
    expect(rec.sha256).toBe(createHash('sha256').update(expected).digest('hex'));
    expect(s.mem.objects.get(rec.objectKey)).toEqual(expected);
    expect(rec.objectKey).toMatch(new RegExp(`^${USER}/${BLOB}/[0-9a-f]{16}$`));
    await expect(s.store.usage(USER)).resolves.toEqual({ bytesUsed: 900 * KiB, blobCount: 1 });
  });

  it('refuses the chunk that would pass the limit, stops reading, removes the partial data and reports it', async () => {
    const s = setup();
    await commitExisting(s, '65a1b2c3d4e5f60718290000', 3 * MiB);
    const src = source(8, 512 * KiB); // 4 MiB, limit leaves room for 1 MiB
    const err = await s.up.put(header({ storageLimit: 4 * MiB }), src.chunks).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({
      kind: 'LIMIT_REACHED',
      code: 'STORAGE_LIMIT_EXCEEDED',
      message: 'Storage limit exceeded for your plan',
      details: { storageLimit: 4 * MiB, bytesUsed: 3 * MiB },
    });
    expect(src.state.pulled).toBe(3); // 3 × 512 KiB = 1.5 MiB is the first over the limit
    expect(s.mem.uploads.size).toBe(0);
    expect(s.mem.calls.filter((c) => c.startsWith('abort'))).toHaveLength(1);
    expect(s.store.all.map((r) => r.blobId)).toEqual(['65a1b2c3d4e5f60718290000']);
    await expect(s.store.usage(USER)).resolves.toEqual({ bytesUsed: 3 * MiB, blobCount: 1 });
    expect(s.events.publish).toHaveBeenCalledWith(
      'storage.limit.exceeded',
      { userId: USER, blobId: BLOB, storageLimit: 4 * MiB, bytesUsed: 3 * MiB },
      { id: `storage.limit.exceeded:${USER}:${BLOB}` },
    );
  });

  it('accepts a blob that fills the limit exactly, and treats 0 as no limit', async () => {
    const s = setup();
    await expect(s.up.put(header({ storageLimit: MiB }), source(4, 256 * KiB).chunks)).resolves.toMatchObject(
      {
        size: MiB,
      },
    );
    await expect(
      s.up.put(header({ blobId: '65a1b2c3d4e5f60718290001', storageLimit: 0 }), source(4, MiB).chunks),
    ).resolves.toMatchObject({ size: 4 * MiB });
  });

  it('refuses at once, before reading, when the user is already over the limit', async () => {
    const s = setup();
    await commitExisting(s, '65a1b2c3d4e5f60718290000', 2 * MiB);
    const src = source(1, 10);
    await expect(s.up.put(header({ storageLimit: MiB }), src.chunks)).rejects.toMatchObject({
      code: 'STORAGE_LIMIT_EXCEEDED',
    });
    expect(src.state.pulled).toBe(0);
    expect(s.mem.calls.some((c) => c.startsWith('create') && c.includes(BLOB))).toBe(false);
  });

  it('checks the limit again at the end against blobs committed meanwhile', async () => {
    const s = setup({ maxBuffered: 256 * KiB });
    const slow = s.up.put(header({ storageLimit: 3 * MiB }), source(8, 256 * KiB).chunks); // 2 MiB
    await new Promise((r) => setImmediate(r));
    // Another upload of the same user lands 2 MiB while the first is still streaming.
    const other = s.up.put(header({ blobId: '65a1b2c3d4e5f60718290002' }), source(1, 2 * MiB).chunks);
    for (let i = 0; i < 20; i++) {
      s.mem.drain();
      await new Promise((r) => setImmediate(r));
    }
    await expect(other).resolves.toMatchObject({ size: 2 * MiB });
    await expect(slow).rejects.toMatchObject({
      code: 'STORAGE_LIMIT_EXCEEDED',
      details: { bytesUsed: 2 * MiB },
    });
    await expect(s.store.usage(USER)).resolves.toEqual({ bytesUsed: 2 * MiB, blobCount: 1 });
  });

  it('counts the bytes of uploads in flight: two held open at once cannot together pass the limit', async () => {
    const s = setup({ holdStepBytes: 256 * KiB });
    // Both streams deliver 2 MiB and then wait, so both are in flight at the same time.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    async function* held(): AsyncGenerator<Buffer> {
      for (let i = 0; i < 8; i++) yield Buffer.alloc(256 * KiB, i);
      await released;
    }
    const limit = 3 * MiB;
    const a = s.up.put(header({ storageLimit: limit }), held());
    const b = s.up.put(header({ blobId: '65a1b2c3d4e5f60718290003', storageLimit: limit }), held());
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    release();
    const results = await Promise.allSettled([a, b]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({
      code: 'STORAGE_LIMIT_EXCEEDED',
      details: { storageLimit: limit },
    });
    await expect(s.store.usage(USER)).resolves.toEqual({ bytesUsed: 2 * MiB, blobCount: 1 });
    // The refused upload's hold went with it: the room it held is free again.
    expect(s.store.all.filter((r) => r.status !== 'committed')).toEqual([]);
    await expect(
      s.up.put(
        header({ blobId: '65a1b2c3d4e5f60718290004', storageLimit: limit }),
        source(4, 256 * KiB).chunks,
      ),
    ).resolves.toMatchObject({ size: MiB });
  });

  it('stops counting the hold of an upload that died (silent past the stale limit)', async () => {
    const s = setup();
    // A process that died mid-upload left its document holding 2 MiB.
    const dead = { userId: USER, blobId: '65a1b2c3d4e5f60718290005', uploadId: '00000000000000bb' };
    await s.store.reserve({
      ...dead,
      backend: 'fs',
      objectKey: `${USER}/${dead.blobId}/${dead.uploadId}`,
      keyFingerprint: '',
      touchedAt: new Date('2025-06-01T10:00:00Z'),
    });
    await s.store.holdBytes(dead, 2 * MiB, new Date('2025-06-01T10:00:00Z'));
    await expect(
      s.up.put(header({ storageLimit: 3 * MiB }), source(8, 256 * KiB).chunks),
    ).rejects.toMatchObject({
      code: 'STORAGE_LIMIT_EXCEEDED',
      details: { bytesUsed: 2 * MiB },
    });
    s.advance(600_001);
    await expect(
      s.up.put(header({ storageLimit: 3 * MiB }), source(8, 256 * KiB).chunks),
    ).resolves.toMatchObject({
      size: 2 * MiB,
    });
  });

  it('does not read the next chunk while the backend is full (backpressure)', async () => {
    const s = setup({ maxBuffered: MiB });
    const src = source(6, 512 * KiB);
    const p = s.up.put(header(), src.chunks);
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    expect(src.state.pulled).toBe(2); // the second chunk filled the backend; the third waits
    s.mem.drain();
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    expect(src.state.pulled).toBe(4);
    s.mem.drain();
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    s.mem.drain();
    await expect(p).resolves.toMatchObject({ size: 3 * MiB });
  });

  it('removes everything when the client goes away mid-stream', async () => {
    const s = setup();
    const gone = new Error('cancelled');
    await expect(s.up.put(header(), source(5, 100, { at: 3, error: gone }).chunks)).rejects.toBe(gone);
    expect(s.mem.calls).toEqual([expect.stringMatching(/^create /), expect.stringMatching(/^abort /)]);
    expect(s.mem.uploads.size + s.mem.objects.size).toBe(0);
    expect(s.store.all).toEqual([]);
    expect(s.events.publish).not.toHaveBeenCalled();
  });

  it('removes everything when the backend fails a write', async () => {
    const s = setup({ failWriteAt: 2 });
    await expect(s.up.put(header(), source(5, 100).chunks)).rejects.toThrow('disk full');
    expect(s.mem.uploads.size + s.mem.objects.size).toBe(0);
    expect(s.store.all).toEqual([]);
  });

  it('refuses a second upload of a stored blob, and one of a blob being uploaded', async () => {
    const s = setup({ maxBuffered: 100 });
    const first = s.up.put(header(), source(2, 100).chunks);
    await new Promise((r) => setImmediate(r));
    await expect(s.up.put(header(), source(1, 1).chunks)).rejects.toMatchObject({
      kind: 'CONFLICT',
      message: 'This backup is already being uploaded',
    });
    s.mem.drain();
    await new Promise((r) => setImmediate(r));
    s.mem.drain();
    await first;
    await expect(s.up.put(header(), source(1, 1).chunks)).rejects.toMatchObject({
      kind: 'CONFLICT',
      message: 'This backup is already stored',
    });
    await expect(s.store.usage(USER)).resolves.toEqual({ bytesUsed: 200, blobCount: 1 });
  });

  it('takes over a blob whose earlier upload died (no heartbeat), discarding its data', async () => {
    const s = setup();
    // A crashed process left an 'uploading' document and a half-written upload.
    const w = await s.mem.backend.createWriter(`${USER}/${BLOB}/00000000000000aa`);
    await s.store.reserve({
      userId: USER,
      blobId: BLOB,
      uploadId: '00000000000000aa',
      backend: 'fs',
      objectKey: `${USER}/${BLOB}/00000000000000aa`,
      keyFingerprint: '',
      touchedAt: new Date('2025-06-01T10:00:00Z'),
    });
    await s.store.setUploadRef(
      { userId: USER, blobId: BLOB, uploadId: '00000000000000aa' },
      w.ref,
      new Date('2025-06-01T10:00:00Z'),
    );
    s.advance(11 * 60_000);
    await expect(s.up.put(header(), source(1, 10).chunks)).resolves.toMatchObject({ size: 10 });
    expect(s.mem.calls).toContain(`discard ${w.ref}`);
    expect(s.mem.uploads.size).toBe(0);
    expect(s.store.all).toHaveLength(1);
  });

  it('fails an upload whose blob is deleted while it streams, and leaves nothing', async () => {
    const s = setup({ maxBuffered: 100 });
    const p = s.up.put(header(), source(3, 100).chunks);
    await new Promise((r) => setImmediate(r));
    const rec = (await s.store.find(USER, BLOB))!;
    await s.clean.discard(rec);
    s.mem.drain();
    await new Promise((r) => setImmediate(r));
    s.mem.drain();
    await new Promise((r) => setImmediate(r));
    s.mem.drain();
    await expect(p).rejects.toMatchObject({ kind: 'CONFLICT' });
    expect(s.mem.uploads.size + s.mem.objects.size).toBe(0);
    expect(s.store.all).toEqual([]);
  });

  it('still refuses over the limit when the event cannot be published', async () => {
    const s = setup();
    s.events.publish.mockRejectedValue(new Error('nats down'));
    await expect(s.up.put(header({ storageLimit: 10 }), source(1, 11).chunks)).rejects.toMatchObject({
      code: 'STORAGE_LIMIT_EXCEEDED',
    });
  });

  it('settled() waits for running uploads', async () => {
    const s = setup({ maxBuffered: 1 });
    const p = s.up.put(header(), source(1, 1).chunks);
    let settled = false;
    void s.up.settled().then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    s.mem.drain();
    await p;
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(true);
  });
});

describe('uploads cancelled by the caller', () => {
  it('discards a blob whose stream ended cleanly but whose caller cancelled before the commit finished', async () => {
    const s = setup();
    const cancel = new AbortController();
    const commit = s.mem.backend.createWriter.bind(s.mem.backend);
    // The cancellation arrives while the backend commits (HTTP/2 reports a reset after the end).
    s.mem.backend.createWriter = async (key) => {
      const w = await commit(key);
      return {
        ...w,
        ref: w.ref,
        write: (c) => w.write(c),
        abort: () => w.abort(),
        commit: async () => {
          await w.commit();
          cancel.abort();
        },
      };
    };
    await expect(s.up.put(header(), source(2, 100).chunks, cancel.signal)).rejects.toThrow('cancelled');
    expect(s.mem.objects.size + s.mem.uploads.size).toBe(0);
    expect(s.store.all).toEqual([]);
  });
});

describe('backendFailure', () => {
  it("says in the owner's words that the disk is full, S3 failed or S3 went silent, and nothing else", () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write /srv/x'), {
      code: 'ENOSPC',
    });
    expect(backendFailure(full)).toMatchObject({
      kind: 'UNAVAILABLE',
      message: 'The storage server ran out of disk space while saving the backup; nothing was kept',
    });
    const s3 = Object.assign(new Error('We encountered an internal error'), {
      $metadata: { httpStatusCode: 500 },
    });
    expect(backendFailure(s3)?.message).toBe(
      'The storage backend failed while saving the backup (S3 answered HTTP 500); nothing was kept',
    );
    const silent = Object.assign(new Error('the request socket timed out after 30000 ms of inactivity'), {
      name: 'TimeoutError',
    });
    expect(backendFailure(silent)?.message).toBe(
      'The storage backend failed while saving the backup (S3 did not answer in time); nothing was kept',
    );
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:9000'), { code: 'ECONNREFUSED' });
    expect(backendFailure(refused)?.message).not.toContain('10.0.0.5');
    expect(backendFailure(new Error('upload cancelled by the client'))).toBeNull();
  });
});
