// One set of cases for both store implementations: the in-memory fake storage's unit tests use and
// the mongoose store on a real FerretDB. A case that passes for one and fails for the other means a
// unit test somewhere proves less than it claims.
import { ferretDbPerCase } from '@coffer/common/testing';
import { storageModels } from './model';
import { fakeBlobStore } from './store.fake';
import { blobStore, type BlobRecord, type BlobStore, type NewUpload, type UploadKey } from './store';

const ferretDb = ferretDbPerCase('storage_contract');

async function onFerretDb(): Promise<BlobStore> {
  const models = storageModels(ferretDb.fresh());
  await models.Blob.init();
  return blobStore(models);
}

const ADA = 'a'.repeat(24);
const GRACE = 'g'.repeat(24);
const T0 = new Date('2025-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

const upload = (blobId: string, over: Partial<NewUpload> = {}): NewUpload => ({
  userId: ADA,
  blobId,
  uploadId: `up-${blobId}`,
  backend: 'fs',
  objectKey: `${ADA}/${blobId}/up-${blobId}`,
  keyFingerprint: 'f'.repeat(16),
  touchedAt: at(0),
  ...over,
});
const keyOf = (u: NewUpload): UploadKey => ({ userId: u.userId, blobId: u.blobId, uploadId: u.uploadId });

describe.each([
  ['in-memory fake', async () => fakeBlobStore() as BlobStore],
  ['mongoose on FerretDB', onFerretDb],
])('blob store: %s', (_name, make) => {
  let store: BlobStore;
  beforeEach(async () => {
    store = await make();
  });

  /** Reserves, sizes and commits a blob of `size` bytes at `minutes`. */
  const committed = async (u: NewUpload, size: number, minutes = 1) => {
    expect(await store.reserve(u)).toBe(true);
    expect(await store.commit(keyOf(u), { size, sha256: 'ab'.repeat(32), createdAt: at(minutes) })).toBe(
      true,
    );
  };

  it('claims a blob once per user and answers the new upload with its defaults', async () => {
    const u = upload('b1');
    expect(await store.reserve(u)).toBe(true);
    expect(await store.reserve({ ...u, uploadId: 'another' })).toBe(false);
    expect(await store.reserve({ ...u, userId: GRACE })).toBe(true);
    const expected: BlobRecord = {
      ...u,
      status: 'uploading',
      uploadRef: null,
      size: 0,
      sha256: '',
      createdAt: null,
      lockedUntil: null,
    };
    expect(await store.find(ADA, 'b1')).toEqual(expected);
    expect(await store.findCommitted(ADA, 'b1')).toBeNull();
    expect(await store.find(ADA, 'b2')).toBeNull();
    expect(await store.reserve(upload('b3', { lockedUntil: at(60) }))).toBe(true);
    expect((await store.find(ADA, 'b3'))!.lockedUntil).toEqual(at(60));
  });

  it('changes a running upload only with its own upload id, and only while it runs', async () => {
    const u = upload('b1');
    await store.reserve(u);
    const stranger = { ...keyOf(u), uploadId: 'not-mine' };
    expect(await store.setUploadRef(stranger, 'ref', at(1))).toBe(false);
    expect(await store.holdBytes(stranger, 10, at(1))).toBe(false);
    expect(await store.touch(stranger, at(1))).toBe(false);
    expect(await store.commit(stranger, { size: 1, sha256: 'x', createdAt: at(1) })).toBe(false);

    expect(await store.setUploadRef(keyOf(u), 'tmp-1', at(1))).toBe(true);
    expect(await store.holdBytes(keyOf(u), 4096, at(2))).toBe(true);
    expect(await store.touch(keyOf(u), at(3))).toBe(true);
    expect(await store.find(ADA, 'b1')).toMatchObject({ uploadRef: 'tmp-1', size: 4096, touchedAt: at(3) });

    expect(await store.commit(keyOf(u), { size: 5000, sha256: 'ab'.repeat(32), createdAt: at(4) })).toBe(
      true,
    );
    const done = await store.findCommitted(ADA, 'b1');
    expect(done).toMatchObject({
      status: 'committed',
      size: 5000,
      sha256: 'ab'.repeat(32),
      createdAt: at(4),
      touchedAt: at(4),
      uploadRef: null,
    });
    expect(await store.setUploadRef(keyOf(u), 'tmp-2', at(5))).toBe(false);
    expect(await store.holdBytes(keyOf(u), 1, at(5))).toBe(false);
    expect(await store.touch(keyOf(u), at(5))).toBe(false);
    expect(await store.commit(keyOf(u), { size: 1, sha256: 'x', createdAt: at(5) })).toBe(false);
    expect(await store.findCommitted(ADA, 'b1')).toEqual(done);
  });

  it('marks a blob for deletion, with a status and quiet-since guard for the sweeper', async () => {
    const a = upload('a');
    const b = upload('b');
    await store.reserve(a);
    await committed(b, 10);
    expect(await store.markDeleting(keyOf(a), at(5), { status: 'committed' })).toBe(false);
    expect(await store.markDeleting(keyOf(a), at(5), { status: 'uploading', touchedBefore: at(0) })).toBe(
      false,
    );
    expect(await store.markDeleting(keyOf(a), at(5), { status: 'uploading', touchedBefore: at(1) })).toBe(
      true,
    );
    expect(await store.find(ADA, 'a')).toMatchObject({ status: 'deleting', touchedAt: at(5) });
    expect(await store.markDeleting(keyOf(b), at(6))).toBe(true);
    expect(await store.findCommitted(ADA, 'b')).toBeNull();
    expect(await store.markDeleting({ ...keyOf(b), uploadId: 'not-mine' }, at(6))).toBe(false);
    await store.remove({ ...keyOf(b), uploadId: 'not-mine' });
    expect(await store.find(ADA, 'b')).not.toBeNull();
    await store.remove(keyOf(b));
    expect(await store.find(ADA, 'b')).toBeNull();
    // The blob id is free again.
    expect(await store.reserve(upload('b', { uploadId: 'second' }))).toBe(true);
  });

  it('counts committed blobs as usage, and live uploads besides them as held bytes', async () => {
    await committed(upload('c1'), 100);
    await committed(upload('c2'), 200);
    await committed(upload('other', { userId: GRACE }), 999);
    const live = upload('live', { touchedAt: at(10) });
    await store.reserve(live);
    await store.holdBytes(keyOf(live), 30, at(10));
    const quiet = upload('quiet');
    await store.reserve(quiet);
    await store.holdBytes(keyOf(quiet), 7, at(1));
    const gone = upload('gone');
    await committed(gone, 50);
    await store.markDeleting(keyOf(gone), at(2));

    expect(await store.usage(ADA)).toEqual({ bytesUsed: 300, blobCount: 2 });
    expect(await store.usage('c'.repeat(24))).toEqual({ bytesUsed: 0, blobCount: 0 });
    expect(await store.held(ADA, at(10))).toBe(330);
    expect(await store.held(ADA, at(1))).toBe(337);
    expect(await store.held('c'.repeat(24), at(0))).toBe(0);
  });

  it("lists a user's blobs, whatever their status", async () => {
    await committed(upload('c1'), 1);
    await store.reserve(upload('u1'));
    await store.reserve(upload('g1', { userId: GRACE }));
    expect((await store.listByUser(ADA)).map((r) => `${r.blobId}:${r.status}`).sort()).toEqual([
      'c1:committed',
      'u1:uploading',
    ]);
  });

  it('lists uploads and deletions quiet since the cut, at most `limit`', async () => {
    await store.reserve(upload('old-upload', { touchedAt: at(0) }));
    await store.reserve(upload('new-upload', { touchedAt: at(9) }));
    const del = upload('old-delete');
    await committed(del, 1, 0);
    await store.markDeleting(keyOf(del), at(1));
    await committed(upload('old-committed'), 1, 0);
    expect((await store.listStale(at(5))).map((r) => r.blobId).sort()).toEqual(['old-delete', 'old-upload']);
    expect(await store.listStale(at(5), 1)).toHaveLength(1);
  });

  it("lists a deleted owner's committed blobs once their lock has ended, at most `limit`", async () => {
    await committed(upload('ended', { lockedUntil: at(5) }), 1);
    await committed(upload('ends-now', { lockedUntil: at(10) }), 1);
    await committed(upload('held', { lockedUntil: at(60) }), 1);
    await committed(upload('never-locked'), 1);
    await store.reserve(upload('running', { lockedUntil: at(5) }));
    await committed(upload('grace', { userId: GRACE, lockedUntil: at(5) }), 1);
    expect(await store.listUnlockedOfDeletedOwners(at(10))).toEqual([]);
    await store.markOwnerDeleted(ADA);
    const names = async (limit?: number) =>
      (await store.listUnlockedOfDeletedOwners(at(10), limit)).map((r) => r.blobId).sort();
    expect(await names()).toEqual(['ended', 'ends-now']);
    expect(await names(1)).toHaveLength(1);
  });

  it('marks only the blobs the deleted owner has at that moment', async () => {
    await store.markOwnerDeleted(ADA);
    await committed(upload('later', { lockedUntil: at(5) }), 1);
    expect(await store.listUnlockedOfDeletedOwners(at(10))).toEqual([]);
  });

  it('knows the backend refs of every upload not yet committed', async () => {
    const running = upload('running');
    await store.reserve(running);
    await store.setUploadRef(keyOf(running), 'ref-running', at(1));
    const done = upload('done');
    await store.reserve(done);
    await store.setUploadRef(keyOf(done), 'ref-done', at(1));
    await store.commit(keyOf(done), { size: 1, sha256: 'x', createdAt: at(2) });
    await store.reserve(upload('no-ref'));
    expect(await store.knownUploadRefs()).toEqual(new Set(['ref-running']));
  });
});
