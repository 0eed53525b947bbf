import type { Logger } from '@coffer/common';
import type { BlobBackend } from '../backends/types.js';
import type { BlobStatus } from '../model.js';
import type { BlobRecord, BlobStore } from '../store.js';

export interface CleanupDeps {
  store: Pick<
    BlobStore,
    'markDeleting' | 'remove' | 'listStale' | 'knownUploadRefs' | 'listUnlockedOfDeletedOwners'
  >;
  backend: Pick<BlobBackend, 'discard' | 'remove' | 'listIncomplete'>;
  log: Pick<Logger, 'info' | 'warn'>;
  /** An upload or deletion not touched for this long is presumed dead. */
  staleAfterMs: number;
  now?: () => Date;
}

/**
 * Removing blobs and left-overs. Every step is idempotent and guarded by the upload id, so a
 * crash anywhere leaves a document in 'uploading' or 'deleting' that the sweep finishes later,
 * and several replicas sweeping at once do each piece of work once.
 */
export function cleanup(deps: CleanupDeps) {
  const { store, backend, log } = deps;
  const now = deps.now ?? (() => new Date());

  /**
   * Hides the blob (status 'deleting'), removes its data, then its document. With `from`, only if
   * the blob is still in that state; false when someone else got there first.
   */
  async function discard(
    rec: BlobRecord,
    from?: { status: BlobStatus; touchedBefore?: Date },
  ): Promise<boolean> {
    if (!(await store.markDeleting(rec, now(), from))) return false;
    if (rec.uploadRef) await backend.discard(rec.uploadRef, rec.objectKey);
    await backend.remove(rec.objectKey);
    await store.remove(rec);
    return true;
  }

  /**
   * One pass: dead uploads, unfinished deletions, blobs a deleted account kept under its
   * retention lock whose date has passed, and backend uploads nobody recorded.
   */
  async function sweep(): Promise<{ records: number; orphans: number }> {
    const before = new Date(now().getTime() - deps.staleAfterMs);
    let records = 0;
    const leftOvers = [
      ...(await store.listStale(before)).map((rec) => ({
        rec,
        from: { status: rec.status, touchedBefore: before },
      })),
      ...(await store.listUnlockedOfDeletedOwners(now())).map((rec) => ({
        rec,
        from: { status: rec.status },
      })),
    ];
    for (const { rec, from } of leftOvers) {
      try {
        if (await discard(rec, from)) {
          records++;
          log.info(
            { userId: rec.userId, blobId: rec.blobId, status: rec.status, objectKey: rec.objectKey },
            'swept a left-over blob',
          );
        }
      } catch (err) {
        log.warn(
          { err, userId: rec.userId, blobId: rec.blobId },
          'could not sweep a left-over blob; will retry',
        );
      }
    }
    // An upload whose process died between starting it in the backend and recording its ref.
    let orphans = 0;
    const known = await store.knownUploadRefs();
    for await (const u of backend.listIncomplete()) {
      if (u.startedAt >= before || known.has(u.ref)) continue;
      try {
        await backend.discard(u.ref, u.objectKey);
        orphans++;
        log.info({ ref: u.ref, objectKey: u.objectKey }, 'discarded an orphaned upload');
      } catch (err) {
        log.warn({ err, ref: u.ref }, 'could not discard an orphaned upload; will retry');
      }
    }
    return { records, orphans };
  }

  /** Sweeps now and then every `intervalMs`; passes never overlap. */
  function start(intervalMs: number): { stop(): Promise<void> } {
    let running: Promise<unknown> = Promise.resolve();
    let stopped = false;
    const tick = () => {
      running = sweep().catch((err: unknown) => log.warn({ err }, 'sweep failed; will retry'));
      void running.then(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs).unref();
      });
    };
    let timer = setTimeout(tick, 0).unref();
    return {
      async stop() {
        stopped = true;
        clearTimeout(timer);
        await running;
      },
    };
  }

  return { discard, sweep, start };
}
export type Cleanup = ReturnType<typeof cleanup>;
