import { isDuplicateKeyError } from '@coffer/common';
import type { BlobStatus, StorageModels } from './model.js';

/** Identifies one upload of one blob: every status change is guarded by the upload id. */
export interface UploadKey {
  userId: string;
  blobId: string;
  uploadId: string;
}

export interface BlobRecord extends UploadKey {
  status: BlobStatus;
  backend: 'fs' | 's3';
  objectKey: string;
  uploadRef: string | null;
  size: number;
  sha256: string;
  keyFingerprint: string;
  createdAt: Date | null;
  touchedAt: Date;
  /** Not deletable before this date (the owner's retention lock); null when not locked. */
  lockedUntil: Date | null;
}

export interface NewUpload extends UploadKey {
  backend: 'fs' | 's3';
  objectKey: string;
  keyFingerprint: string;
  touchedAt: Date;
  lockedUntil?: Date | null;
}

export interface Usage {
  bytesUsed: number;
  blobCount: number;
}

const keyFilter = (k: UploadKey) => ({ userId: k.userId, blobId: k.blobId, uploadId: k.uploadId });

/**
 * Data access for blob metadata, the only code that touches mongoose. Domain modules receive the
 * methods they call, so unit tests hand in the in-memory fake (store.fake.ts).
 */
export function blobStore({ Blob }: StorageModels) {
  const toRecord = (d: Record<string, unknown>): BlobRecord => ({
    userId: d.userId as string,
    blobId: d.blobId as string,
    uploadId: d.uploadId as string,
    status: d.status as BlobStatus,
    backend: d.backend as 'fs' | 's3',
    objectKey: d.objectKey as string,
    uploadRef: (d.uploadRef as string | null) ?? null,
    size: Number(d.size ?? 0),
    sha256: (d.sha256 as string) ?? '',
    keyFingerprint: (d.keyFingerprint as string) ?? '',
    createdAt: (d.createdAt as Date | null) ?? null,
    touchedAt: d.touchedAt as Date,
    lockedUntil: (d.lockedUntil as Date | null) ?? null,
  });

  return {
    /** Claims (userId, blobId) for a new upload; false when a document for it already exists. */
    async reserve(u: NewUpload): Promise<boolean> {
      try {
        await Blob.create({ ...u, status: 'uploading', uploadRef: null });
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },

    async find(userId: string, blobId: string): Promise<BlobRecord | null> {
      const d = await Blob.findOne({ userId, blobId }).lean();
      return d ? toRecord(d) : null;
    },

    async findCommitted(userId: string, blobId: string): Promise<BlobRecord | null> {
      const d = await Blob.findOne({ userId, blobId, status: 'committed' }).lean();
      return d ? toRecord(d) : null;
    },

    /** Records the backend's handle of the upload; false if the upload was taken away meanwhile. */
    async setUploadRef(k: UploadKey, uploadRef: string, at: Date): Promise<boolean> {
      const r = await Blob.updateOne(
        { ...keyFilter(k), status: 'uploading' },
        { $set: { uploadRef, touchedAt: at } },
      );
      return r.matchedCount === 1;
    },

    /**
     * Sets the bytes a running upload holds against the user's quota (its `size` while it runs) and
     * proves it alive; false if it is no longer 'uploading' (deleted, swept).
     */
    async holdBytes(k: UploadKey, bytes: number, at: Date): Promise<boolean> {
      const r = await Blob.updateOne(
        { ...keyFilter(k), status: 'uploading' },
        { $set: { size: bytes, touchedAt: at } },
      );
      return r.matchedCount === 1;
    },

    /** Heartbeat of a running upload; false if it is no longer 'uploading' (deleted, swept). */
    async touch(k: UploadKey, at: Date): Promise<boolean> {
      const r = await Blob.updateOne({ ...keyFilter(k), status: 'uploading' }, { $set: { touchedAt: at } });
      return r.matchedCount === 1;
    },

    /** Makes the upload visible; false if it was deleted or swept while it ran. */
    async commit(k: UploadKey, v: { size: number; sha256: string; createdAt: Date }): Promise<boolean> {
      const r = await Blob.updateOne(
        { ...keyFilter(k), status: 'uploading' },
        {
          $set: {
            status: 'committed',
            size: v.size,
            sha256: v.sha256,
            createdAt: v.createdAt,
            touchedAt: v.createdAt,
            uploadRef: null,
          },
        },
      );
      return r.matchedCount === 1;
    },

    /**
     * Hides the blob and marks its data for removal. With `from`, only when it is in that status
     * (and, with `touchedBefore`, quiet since then): how the sweeper claims left-overs.
     */
    async markDeleting(
      k: UploadKey,
      at: Date,
      from?: { status: BlobStatus; touchedBefore?: Date },
    ): Promise<boolean> {
      const filter: Record<string, unknown> = keyFilter(k);
      if (from) filter.status = from.status;
      if (from?.touchedBefore) filter.touchedAt = { $lt: from.touchedBefore };
      const r = await Blob.updateOne(filter, { $set: { status: 'deleting', touchedAt: at } });
      return r.matchedCount === 1;
    },

    /** Drops the document of an upload whose data is gone. */
    async remove(k: UploadKey): Promise<void> {
      await Blob.deleteOne(keyFilter(k));
    },

    /**
     * Bytes and blobs a user has stored: committed blobs only. Two queries, because FerretDB 1.x
     * answers only the first accumulator of a `$group` with several ($sum of size, then $sum: 1
     * gives 0 for the second).
     */
    async usage(userId: string): Promise<Usage> {
      const match = { userId, status: 'committed' };
      const [[row], blobCount] = await Promise.all([
        Blob.aggregate<{ bytesUsed: number }>([
          { $match: match },
          { $group: { _id: null, bytesUsed: { $sum: '$size' } } },
        ]),
        Blob.countDocuments(match),
      ]);
      return { bytesUsed: Number(row?.bytesUsed ?? 0), blobCount };
    },

    /**
     * Bytes held against the user's quota: committed blobs plus what uploads still alive (touched
     * since `aliveSince`) hold. One query, so a blob turning from held to committed is counted
     * once, and one accumulator (FerretDB, above): an upload's `size` is its hold while it runs.
     */
    async held(userId: string, aliveSince: Date): Promise<number> {
      const [row] = await Blob.aggregate<{ bytes: number }>([
        {
          $match: {
            userId,
            $or: [{ status: 'committed' }, { status: 'uploading', touchedAt: { $gte: aliveSince } }],
          },
        },
        { $group: { _id: null, bytes: { $sum: '$size' } } },
      ]);
      return Number(row?.bytes ?? 0);
    },

    async listByUser(userId: string): Promise<BlobRecord[]> {
      return (await Blob.find({ userId }).lean()).map(toRecord);
    },

    /** Marks the blobs a deleted account left under its retention lock, for the sweep to remove later. */
    async markOwnerDeleted(userId: string): Promise<void> {
      await Blob.updateMany({ userId }, { $set: { ownerDeleted: true } });
    },

    /** Committed blobs of deleted accounts whose lock has ended: the sweep removes them. */
    async listUnlockedOfDeletedOwners(now: Date, limit = 500): Promise<BlobRecord[]> {
      const docs = await Blob.find({ ownerDeleted: true, status: 'committed', lockedUntil: { $lte: now } })
        .limit(limit)
        .lean();
      return docs.map(toRecord);
    },

    /** Uploads and deletions nobody has touched since `before`: their owner is gone. */
    async listStale(before: Date, limit = 500): Promise<BlobRecord[]> {
      const docs = await Blob.find({ status: { $in: ['uploading', 'deleting'] }, touchedAt: { $lt: before } })
        .limit(limit)
        .lean();
      return docs.map(toRecord);
    },

    /** Backend refs of every upload that still has a document (the rest are orphans). */
    async knownUploadRefs(): Promise<Set<string>> {
      const docs = await Blob.find(
        { status: { $ne: 'committed' }, uploadRef: { $ne: null } },
        { uploadRef: 1 },
      ).lean();
      return new Set(docs.map((d) => d.uploadRef).filter((r): r is string => typeof r === 'string'));
    },
  };
}
export type BlobStore = ReturnType<typeof blobStore>;
