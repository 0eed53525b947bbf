import type { Readable } from 'node:stream';

/** Byte range of a read, both ends inclusive (like HTTP Range). */
export interface ByteRange {
  start: number;
  end?: number;
}

/**
 * One blob being written. `write` resolves once the backend has room for more (backpressure: the
 * caller reads its source only after that), `commit` makes the blob durable under its object key,
 * `abort` removes everything written so far. After a failure the caller must call `abort`.
 */
export interface BlobWriter {
  /** Backend handle of the unfinished upload (temp file name, multipart upload id), for sweeps. */
  readonly ref: string;
  write(chunk: Buffer): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** An upload the backend holds that never finished (a crashed writer's left-over). */
export interface IncompleteUpload {
  ref: string;
  startedAt: Date;
}

/** Where ciphertext lives. Object keys are `<userId>/<blobId>/<uploadId>` (hex and slashes only). */
export interface BlobBackend {
  readonly name: 'fs' | 's3';
  /** Creates the directories or the bucket if missing. */
  init(): Promise<void>;
  /**
   * `retainUntil`: the backend itself must refuse to delete the committed object before then
   * where it can (S3 Object Lock, compliance mode); the fs backend relies on storage's records.
   */
  createWriter(objectKey: string, opts?: { retainUntil?: Date }): Promise<BlobWriter>;
  read(objectKey: string, range?: ByteRange): Promise<Readable>;
  /** Removes a committed object; removing a missing one is fine. */
  remove(objectKey: string): Promise<void>;
  /** Discards an unfinished upload by its ref (S3 also needs its key); a missing one is fine. */
  discard(ref: string, objectKey?: string): Promise<void>;
  /** Unfinished uploads the backend still holds, whoever started them. */
  listIncomplete(): AsyncIterable<IncompleteUpload & { objectKey?: string }>;
  /** Cheap reachability check for readiness. */
  ping(): Promise<boolean>;
}

const KEY = /^[0-9a-f]{24}\/[0-9a-f]{24}\/[0-9a-f]{16,32}$/;

/** Object keys are built from validated ids; refuse anything else before it reaches a path. */
export function assertObjectKey(objectKey: string): string {
  if (!KEY.test(objectKey)) throw new Error(`invalid object key ${JSON.stringify(objectKey)}`);
  return objectKey;
}
