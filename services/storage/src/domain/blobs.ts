import type { Readable } from 'node:stream';
import { notFound, unavailable, type AppError, type Logger } from '@coffer/common';
import { backendCause, describeCause } from '../backends/failures.js';
import type { BlobBackend } from '../backends/types.js';
import type { BlobRecord, BlobStore, Usage } from '../store.js';
import type { Cleanup } from './cleanup.js';

export const BLOB_NOT_FOUND = 'Backup file not found';

/**
 * The backend failing to give a stored blob back (S3 answering 500s or nothing at all), in words
 * for the person downloading or restoring: the file is safe, try again. null for anything else.
 */
export function readFailure(err: unknown): AppError | null {
  const cause = backendCause(err);
  if (!cause || cause.kind === 'disk-full') return null;
  return unavailable(
    `The backup file could not be read from storage right now (${describeCause(cause)}). Please try again shortly.`,
  );
}

export interface BlobsDeps {
  store: Pick<BlobStore, 'find' | 'findCommitted' | 'usage' | 'listByUser'>;
  backend: Pick<BlobBackend, 'read'>;
  cleanup: Pick<Cleanup, 'discard'>;
  log: Pick<Logger, 'info' | 'error'>;
}

/** Reading, deleting and accounting for stored blobs. Another user's blob is simply not found. */
export function blobs(deps: BlobsDeps) {
  const { store, log } = deps;

  async function stat(userId: string, blobId: string): Promise<BlobRecord> {
    const rec = await store.findCommitted(userId, blobId);
    if (!rec) throw notFound(BLOB_NOT_FOUND);
    return rec;
  }

  return {
    stat,

    /** The blob's metadata and a stream of its bytes. */
    async open(userId: string, blobId: string): Promise<{ record: BlobRecord; body: Readable }> {
      const record = await stat(userId, blobId);
      try {
        return { record, body: await deps.backend.read(record.objectKey) };
      } catch (err) {
        // Deleted between the lookup and the read: simply gone.
        if (!(await store.findCommitted(userId, blobId))) throw notFound(BLOB_NOT_FOUND);
        // Metadata says committed but the data cannot be read: an operator must look.
        log.error({ err, userId, blobId, objectKey: record.objectKey }, 'stored blob cannot be read');
        throw readFailure(err) ?? err;
      }
    },

    /** Removes the blob's data and metadata; a blob that is not there is already deleted. */
    async remove(userId: string, blobId: string): Promise<void> {
      const rec = await store.find(userId, blobId);
      if (!rec) return;
      await deps.cleanup.discard(rec);
      log.info({ userId, blobId, size: rec.size, status: rec.status }, 'blob deleted');
    },

    usage(userId: string): Promise<Usage> {
      return store.usage(userId);
    },

    /** Removes every blob of a user (account deleted); resolves to how many were removed. */
    async removeUser(userId: string): Promise<number> {
      let removed = 0;
      for (const rec of await store.listByUser(userId)) {
        if (await deps.cleanup.discard(rec)) removed++;
      }
      log.info({ userId, removed }, "removed a deleted user's blobs");
      return removed;
    },
  };
}
export type Blobs = ReturnType<typeof blobs>;
