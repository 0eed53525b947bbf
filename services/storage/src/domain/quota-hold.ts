import { conflict, limitReached } from '@coffer/common';
import type { BlobStore, UploadKey } from '../store.js';

export const STORAGE_LIMIT_MESSAGE = 'Storage limit exceeded for your plan';
export const STORAGE_LIMIT_CODE = 'STORAGE_LIMIT_EXCEEDED';

const RETRIES = 3;
const RETRY_PAUSE_MS = 20;

export const deletedDuringUpload = () => conflict('The backup was deleted while it was being uploaded');

export interface QuotaHoldDeps {
  store: Pick<BlobStore, 'holdBytes' | 'held'>;
  /** Runs one write to the upload's document after the upload's earlier ones (see uploads.ts). */
  serial: <T>(write: () => Promise<T>) => Promise<T>;
  /** Holds of uploads silent for this long do not count: their upload is dead and will be swept. */
  staleAfterMs: number;
  /** How far ahead of the bytes received a hold is raised, so a large upload raises it seldom. */
  stepBytes: number;
  now: () => Date;
}

/**
 * The bytes one upload holds against its owner's storage limit, so uploads running side by side
 * cannot together store more than the plan allows. A raise is written to the upload's own document
 * first and the user's total read after it: of two uploads raising at once, the one that reads
 * last sees both holds, so the two never pass the limit together. FerretDB has no transactions;
 * one single-document write followed by one aggregate read is all this needs. Near the limit, two
 * uploads racing may both be refused where one alone would fit: the safe side.
 *
 * The hold lives in the upload's document: it ends with it (committed: the hold becomes the size;
 * failed: the document is removed), and an upload that died with its process stops counting once
 * it has been silent for `staleAfterMs`, the moment the sweep may remove it.
 */
export function quotaHold(key: UploadKey, storageLimit: number, deps: QuotaHoldDeps) {
  let held = 0;
  let granted = 0; // the last hold a check confirmed
  let others = 0; // what the user's other blobs and uploads held at the last check
  let checked = false;

  const total = () => deps.store.held(key.userId, new Date(deps.now().getTime() - deps.staleAfterMs));
  const refuse = (bytesUsed: number) =>
    limitReached(STORAGE_LIMIT_MESSAGE, STORAGE_LIMIT_CODE, { storageLimit, bytesUsed });

  async function hold(bytes: number): Promise<number> {
    if (!(await deps.serial(() => deps.store.holdBytes(key, bytes, deps.now())))) throw deletedDuringUpload();
    held = bytes;
    const seen = await total();
    others = seen - held;
    return seen;
  }

  /**
   * Holds room for `needed` bytes in all, raising the hold a step ahead; with `exact`, holds exactly
   * that and checks again even when it is already held. Throws LIMIT_REACHED with the bytes the
   * user's other blobs and uploads take.
   */
  async function cover(needed: number, exact = false): Promise<void> {
    if (storageLimit <= 0 || (!exact && checked && needed <= held)) return;
    for (let attempt = 0; ; attempt++) {
      // A step ahead as far as the last check left room; failing that, exactly what is needed.
      const ahead = Math.max(needed, Math.min(needed + deps.stepBytes, storageLimit - others));
      for (const target of exact ? [needed] : [...new Set([ahead, needed])]) {
        if ((await hold(target)) <= storageLimit) {
          granted = target;
          checked = true;
          return;
        }
      }
      if (attempt >= RETRIES) throw refuse(Math.max(0, others));
      // Over the limit, perhaps only because another upload raised its hold at the same moment
      // (then both saw both): go back to what was confirmed, so that one can pass, and try again
      // a random moment later.
      await hold(Math.min(granted, needed));
      await new Promise((r) => setTimeout(r, RETRY_PAUSE_MS * (1 + Math.random())));
    }
  }

  return { cover };
}
