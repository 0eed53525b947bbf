import type { BlobStatus } from './model.js';
import type { BlobRecord, BlobStore, NewUpload, UploadKey } from './store.js';

const same = (a: UploadKey, b: UploadKey) =>
  a.userId === b.userId && a.blobId === b.blobId && a.uploadId === b.uploadId;

/** In-memory BlobStore for unit tests, with the same unique key (userId, blobId) and guards. */
export function fakeBlobStore(): BlobStore & { all: BlobRecord[] } {
  const all: BlobRecord[] = [];
  // A flag on the records the owner had when the account went, like the collection's ownerDeleted:
  // a blob written later is not marked.
  const ownerDeleted = new WeakSet<BlobRecord>();
  const get = (k: UploadKey) => all.find((r) => same(r, k));
  return {
    all,
    async markOwnerDeleted(userId) {
      for (const r of all) if (r.userId === userId) ownerDeleted.add(r);
    },
    async listUnlockedOfDeletedOwners(now, limit = 500) {
      return all
        .filter(
          (r) => ownerDeleted.has(r) && r.status === 'committed' && r.lockedUntil && r.lockedUntil <= now,
        )
        .slice(0, limit)
        .map((r) => ({ ...r }));
    },
    async reserve(u: NewUpload) {
      if (all.some((r) => r.userId === u.userId && r.blobId === u.blobId)) return false;
      all.push({
        ...u,
        status: 'uploading',
        uploadRef: null,
        size: 0,
        sha256: '',
        createdAt: null,
        lockedUntil: u.lockedUntil ?? null,
      });
      return true;
    },
    async find(userId, blobId) {
      const r = all.find((x) => x.userId === userId && x.blobId === blobId);
      return r ? { ...r } : null;
    },
    async findCommitted(userId, blobId) {
      const r = all.find((x) => x.userId === userId && x.blobId === blobId && x.status === 'committed');
      return r ? { ...r } : null;
    },
    async setUploadRef(k, uploadRef, at) {
      const r = get(k);
      if (r?.status !== 'uploading') return false;
      Object.assign(r, { uploadRef, touchedAt: at });
      return true;
    },
    async holdBytes(k, bytes, at) {
      const r = get(k);
      if (r?.status !== 'uploading') return false;
      Object.assign(r, { size: bytes, touchedAt: at });
      return true;
    },
    async held(userId, aliveSince) {
      return all
        .filter(
          (r) =>
            r.userId === userId &&
            (r.status === 'committed' || (r.status === 'uploading' && r.touchedAt >= aliveSince)),
        )
        .reduce((n, r) => n + r.size, 0);
    },
    async touch(k, at) {
      const r = get(k);
      if (r?.status !== 'uploading') return false;
      r.touchedAt = at;
      return true;
    },
    async commit(k, v) {
      const r = get(k);
      if (r?.status !== 'uploading') return false;
      Object.assign(r, { ...v, status: 'committed', touchedAt: v.createdAt, uploadRef: null });
      return true;
    },
    async markDeleting(k, at, from?: { status: BlobStatus; touchedBefore?: Date }) {
      const r = get(k);
      if (!r) return false;
      if (from && r.status !== from.status) return false;
      if (from?.touchedBefore && !(r.touchedAt < from.touchedBefore)) return false;
      Object.assign(r, { status: 'deleting', touchedAt: at });
      return true;
    },
    async remove(k) {
      const i = all.findIndex((r) => same(r, k));
      if (i >= 0) all.splice(i, 1);
    },
    async usage(userId) {
      const mine = all.filter((r) => r.userId === userId && r.status === 'committed');
      return { bytesUsed: mine.reduce((n, r) => n + r.size, 0), blobCount: mine.length };
    },
    async listByUser(userId) {
      return all.filter((r) => r.userId === userId).map((r) => ({ ...r }));
    },
    async listStale(before, limit = 500) {
      return all
        .filter((r) => r.status !== 'committed' && r.touchedAt < before)
        .slice(0, limit)
        .map((r) => ({ ...r }));
    },
    async knownUploadRefs() {
      return new Set(all.filter((r) => r.status !== 'committed' && r.uploadRef).map((r) => r.uploadRef!));
    },
  };
}
