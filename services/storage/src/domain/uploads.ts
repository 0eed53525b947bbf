import { createHash, randomBytes } from 'node:crypto';
import { AppError, conflict, unavailable, type EventBus, type Logger } from '@coffer/common';
import { backendCause, describeCause } from '../backends/failures.js';
import type { BlobBackend, BlobWriter } from '../backends/types.js';
import { limitExceededEvent } from '../events.js';
import type { BlobRecord, BlobStore, UploadKey } from '../store.js';
import type { Cleanup } from './cleanup.js';
import { deletedDuringUpload, quotaHold, STORAGE_LIMIT_CODE } from './quota-hold.js';

export { STORAGE_LIMIT_CODE, STORAGE_LIMIT_MESSAGE } from './quota-hold.js';

export interface PutHeader {
  userId: string;
  blobId: string;
  /** Bytes the user may store in all; 0 means no limit. */
  storageLimit: number;
  keyFingerprint: string;
  /** The owner's retention lock: not deletable before this date (S3: Object Lock until then). */
  lockedUntil?: Date | null;
}

export interface UploadDeps {
  store: Pick<
    BlobStore,
    'reserve' | 'find' | 'setUploadRef' | 'touch' | 'holdBytes' | 'held' | 'commit' | 'remove'
  >;
  backend: Pick<BlobBackend, 'name' | 'createWriter' | 'remove'>;
  cleanup: Pick<Cleanup, 'discard'>;
  events: Pick<EventBus, 'publish'>;
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** An upload silent for this long may be taken over by a new upload of the same blob. */
  staleAfterMs: number;
  /** How often a running upload proves it is alive; well below staleAfterMs. */
  heartbeatMs: number;
  /** How far ahead of the bytes received an upload raises its hold on the quota (quota-hold.ts). */
  holdStepBytes?: number;
  now?: () => Date;
}

const DEFAULT_HOLD_STEP = 16 * 1024 * 1024;

/**
 * The backend's own failure while saving, for the backup's record (the gateway turns an unknown
 * error into a bare 'Internal error'); null for anything else (e.g. the client's stream broke).
 */
export function backendFailure(err: unknown): AppError | null {
  const cause = backendCause(err);
  if (!cause) return null;
  if (cause.kind === 'disk-full')
    return unavailable('The storage server ran out of disk space while saving the backup; nothing was kept');
  return unavailable(
    `The storage backend failed while saving the backup (${describeCause(cause)}); nothing was kept`,
  );
}

/**
 * Writing blobs. The metadata document is claimed before the first byte (so two uploads of one
 * blob cannot both run, and a crash leaves something the sweep can find), the data streams to the
 * backend one chunk at a time, and only a clean end of stream plus a backend commit makes the
 * blob visible. Every other ending removes what was written.
 */
export function uploads(deps: UploadDeps) {
  const { store, backend, log } = deps;
  const now = deps.now ?? (() => new Date());
  const running = new Set<Promise<unknown>>();

  async function reserve(h: PutHeader, key: UploadKey, objectKey: string) {
    for (let attempt = 0; attempt < 3; attempt++) {
      const fresh = await store.reserve({
        ...key,
        backend: backend.name,
        objectKey,
        keyFingerprint: h.keyFingerprint,
        touchedAt: now(),
        lockedUntil: h.lockedUntil ?? null,
      });
      if (fresh) return;
      const existing = await store.find(h.userId, h.blobId);
      if (!existing) continue; // deleted in the meantime
      if (existing.status === 'committed') throw conflict('This backup is already stored');
      const staleBefore = new Date(now().getTime() - deps.staleAfterMs);
      if (existing.status === 'uploading' && existing.touchedAt >= staleBefore) {
        throw conflict('This backup is already being uploaded');
      }
      // A dead upload or an unfinished deletion of the same blob: finish removing it, then retry.
      await deps.cleanup.discard(existing, {
        status: existing.status,
        touchedBefore: existing.status === 'uploading' ? staleBefore : undefined,
      });
    }
    throw conflict('This backup is already being uploaded');
  }

  async function put(h: PutHeader, chunks: AsyncIterable<Buffer>, signal?: AbortSignal): Promise<BlobRecord> {
    const key: UploadKey = { userId: h.userId, blobId: h.blobId, uploadId: randomBytes(8).toString('hex') };
    const objectKey = `${h.userId}/${h.blobId}/${key.uploadId}`;
    const ctx = { userId: h.userId, blobId: h.blobId, backend: backend.name };
    await reserve(h, key, objectKey);

    let writer: BlobWriter | undefined;
    let backendCommitted = false;
    let taken = false; // the document left 'uploading' (deleted or swept) while we ran
    let size = 0;
    // One write at a time to the upload's document: FerretDB's update reads and writes the whole
    // document, so two overlapping updates can undo each other (a heartbeat racing the commit once
    // wrote 'uploading' back over 'committed'; one racing a hold could shrink the hold).
    let writes: Promise<unknown> = Promise.resolve();
    const serial = <T>(write: () => Promise<T>): Promise<T> => {
      const next = writes.then(write);
      writes = next.catch(() => undefined);
      return next;
    };
    const quota = quotaHold(key, h.storageLimit, {
      store,
      serial,
      staleAfterMs: deps.staleAfterMs,
      stepBytes: deps.holdStepBytes ?? DEFAULT_HOLD_STEP,
      now,
    });
    const heartbeat = setInterval(() => {
      void serial(() => store.touch(key, now())).then(
        (alive) => {
          if (!alive) taken = true;
        },
        (err: unknown) => log.warn({ err, ...ctx }, 'upload heartbeat failed'),
      );
    }, deps.heartbeatMs);
    heartbeat.unref();

    const refuseIfCancelled = () => {
      if (signal?.aborted) throw new Error('upload cancelled by the client');
    };

    try {
      await quota.cover(0);
      writer = await backend.createWriter(objectKey, { retainUntil: h.lockedUntil ?? undefined });
      if (!(await store.setUploadRef(key, writer.ref, now()))) throw deletedDuringUpload();

      const hash = createHash('sha256');
      for await (const chunk of chunks) {
        refuseIfCancelled();
        if (taken) throw deletedDuringUpload();
        size += chunk.length;
        await quota.cover(size);
        hash.update(chunk);
        await writer.write(chunk); // resolves when the backend has room: the source waits till then
      }
      // The hold shrinks to the real size and is checked once more: a hold that stopped counting
      // while this upload was silent (see quota-hold.ts) may have let another upload take its room.
      await quota.cover(size, true);
      await writer.commit();
      backendCommitted = true;
      // A client that cancels can look like a clean end of stream at first (HTTP/2 ends the
      // stream, then reports the reset): the commit's I/O gives the cancellation time to
      // arrive, and the blob becomes visible only if it has not.
      refuseIfCancelled();
      // No touch may overlap the commit: FerretDB's update reads and writes the whole document, so
      // a touch racing the commit could write 'uploading' back over 'committed' (seen in the
      // faults suite: a stored blob turned 'uploading' again and was swept away).
      clearInterval(heartbeat);
      await writes;
      if (taken) throw deletedDuringUpload();
      const createdAt = now();
      const sha256 = hash.digest('hex');
      if (!(await store.commit(key, { size, sha256, createdAt }))) throw deletedDuringUpload();
      log.info({ ...ctx, size }, 'blob stored');
      return {
        ...key,
        status: 'committed',
        backend: backend.name,
        objectKey,
        uploadRef: null,
        size,
        sha256,
        keyFingerprint: h.keyFingerprint,
        createdAt,
        touchedAt: createdAt,
        lockedUntil: h.lockedUntil ?? null,
      };
    } catch (caught) {
      let err = caught;
      // A backend failure because the blob was deleted under us (its upload discarded) is that.
      if (!(err instanceof AppError) && !(await store.touch(key, now()).catch(() => true))) {
        err = deletedDuringUpload();
      }
      if (!(err instanceof AppError)) {
        const failure = backendFailure(err);
        if (failure) {
          log.warn({ err, ...ctx }, 'the storage backend failed during an upload');
          err = failure;
        }
      }
      await undo(key, objectKey, writer, backendCommitted, ctx);
      if (err instanceof AppError && err.code === STORAGE_LIMIT_CODE) {
        const bytesUsed = Number(err.details.bytesUsed);
        log.info(
          { ...ctx, received: size, storageLimit: h.storageLimit, bytesUsed },
          'upload refused: storage limit',
        );
        await deps.events
          .publish(
            ...limitExceededEvent({
              userId: h.userId,
              blobId: h.blobId,
              storageLimit: h.storageLimit,
              bytesUsed,
            }),
          )
          .catch((e: unknown) => log.warn({ err: e, ...ctx }, 'could not publish storage.limit.exceeded'));
      } else {
        log.info({ ...ctx, received: size, reason: (err as Error)?.message }, 'upload discarded');
      }
      throw err;
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Removes what a failed upload wrote; if this fails too, the sweep finishes it later. */
  async function undo(
    key: UploadKey,
    objectKey: string,
    writer: BlobWriter | undefined,
    backendCommitted: boolean,
    ctx: object,
  ) {
    try {
      if (backendCommitted) await backend.remove(objectKey);
      else await writer?.abort();
      await store.remove(key);
    } catch (err) {
      log.error({ err, ...ctx }, 'could not remove a failed upload; the sweep will');
    }
  }

  return {
    /**
     * Streams one blob in; resolves with its metadata once it is committed and visible. Abort
     * `signal` when the caller goes away: the upload is then discarded, however far it got.
     */
    put(h: PutHeader, chunks: AsyncIterable<Buffer>, signal?: AbortSignal): Promise<BlobRecord> {
      const p = put(h, chunks, signal);
      running.add(p);
      const forget = () => running.delete(p);
      p.then(forget, forget);
      return p;
    },
    /** Resolves once every running upload has finished or cleaned up (graceful shutdown). */
    async settled(): Promise<void> {
      await Promise.allSettled([...running]);
    },
  };
}
export type Uploads = ReturnType<typeof uploads>;
