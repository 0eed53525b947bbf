import type { Readable } from 'node:stream';
import { backupLocked, notFound, unavailable, type AppError, type Logger } from '@coffer/common';
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

/** A committed blob under its owner's retention lock at `now` (its data is what the lock keeps). */
export const blobLocked = (rec: Pick<BlobRecord, 'status' | 'lockedUntil'>, now: Date): boolean =>
  rec.status === 'committed' && !!rec.lockedUntil && rec.lockedUntil > now;

export interface BlobsDeps {
  store: Pick<BlobStore, 'find' | 'findCommitted' | 'usage' | 'listByUser' | 'markOwnerDeleted'>;
  backend: Pick<BlobBackend, 'read'>;
  cleanup: Pick<Cleanup, 'discard'>;
  log: Pick<Logger, 'info' | 'error'>;
  now?: () => Date;
}

/** Reading, deleting and accounting for stored blobs. Another user's blob is simply not found. */
export function blobs(deps: BlobsDeps) {
  const { store, log } = deps;
  const now = deps.now ?? (() => new Date());

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

    /**
     * Removes the blob's data and metadata; a blob that is not there is already deleted. A blob
     * under the retention lock is refused whoever asks (409 BACKUP_LOCKED naming the date): this
     * holds on the fs backend, where nothing below storage enforces it.
     */
    async remove(userId: string, blobId: string): Promise<void> {
      const rec = await store.find(userId, blobId);
      if (!rec) return;
      if (blobLocked(rec, now())) throw backupLocked(rec.lockedUntil!);
      await deps.cleanup.discard(rec);
      log.info({ userId, blobId, size: rec.size, status: rec.status }, 'blob deleted');
    },

    usage(userId: string): Promise<Usage> {
      return store.usage(userId);
    },

    /**
     * Removes every blob of a user (account deleted); resolves to how many were removed. Blobs
     * under the retention lock stay until their date, marked for the sweep (cleanup.ts).
     */
    async removeUser(userId: string): Promise<number> {
      let removed = 0;
      let kept = 0;
      const at = now();
      for (const rec of await store.listByUser(userId)) {
        if (blobLocked(rec, at)) kept++;
        else if (await deps.cleanup.discard(rec)) removed++;
      }
      if (kept) await store.markOwnerDeleted(userId);
      log.info({ userId, removed, keptLocked: kept }, "removed a deleted user's blobs");
      return removed;
    },
  };
}
export type Blobs = ReturnType<typeof blobs>;
