import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';
import type { ServiceDatabase } from '@coffer/common';

export const BLOB_STATUSES = ['uploading', 'committed', 'deleting'] as const;
export type BlobStatus = (typeof BLOB_STATUSES)[number];

/**
 * One document per blob, written before the first byte ('uploading'), flipped to 'committed' once
 * the backend has committed the data, and to 'deleting' while its data is being removed. Only
 * committed documents are visible and count toward usage (the quota also counts what uploads in
 * flight hold: see `size`); the others are swept if their owner dies. One document changes at a time, so no transaction is needed (FerretDB 1.x has none).
 */
const blobSchema = new Schema(
  {
    userId: { type: String, required: true },
    blobId: { type: String, required: true },
    /** Random per upload: part of the object key, and the guard on every status change. */
    uploadId: { type: String, required: true },
    status: { type: String, enum: BLOB_STATUSES, required: true },
    backend: { type: String, enum: ['fs', 's3'], required: true },
    objectKey: { type: String, required: true },
    /** The backend's handle of the unfinished upload (temp file, multipart upload id). */
    uploadRef: { type: String, default: null },
    /**
     * Bytes the blob holds against its owner's quota: its size once committed; while uploading, the
     * bytes reserved so far (at least those received), so uploads in flight count too.
     */
    size: { type: Number, default: 0 },
    sha256: { type: String, default: '' },
    keyFingerprint: { type: String, default: '' },
    createdAt: { type: Date, default: null },
    /**
     * The owner's retention lock: nobody deletes the blob before this date (domain/blobs.ts; on
     * S3 the object also carries Object Lock in compliance mode until then).
     */
    lockedUntil: { type: Date, default: null },
    /** Its owner's account was deleted while the lock held: removed by the sweep once it ends. */
    ownerDeleted: { type: Boolean, default: false },
    /** Last sign of life of the upload (heartbeat), or when deletion started. */
    touchedAt: { type: Date, required: true },
  },
  { collection: 'blobs', versionKey: false },
);
blobSchema.index({ userId: 1, blobId: 1 }, { unique: true });
blobSchema.index({ userId: 1, status: 1 });
blobSchema.index({ status: 1, touchedAt: 1 });

export type BlobDoc = InferSchemaType<typeof blobSchema>;

export interface StorageModels {
  Blob: Model<BlobDoc>;
}

export function storageModels(conn: Connection): StorageModels {
  return { Blob: conn.model('Blob', blobSchema) };
}

/** What the migrate step builds and applies (docs/operations.md, "Upgrades"): indexes only, so far. */
export const storageDatabase: ServiceDatabase<StorageModels> = { models: storageModels };
