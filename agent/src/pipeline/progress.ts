// Progress reports `{current, total, percentage, collection, estimated}` (product §3) for
// backups and restores, emitted once a second while a job runs, plus a final one at 100 %.
import type { ProgressInfo } from '@coffer/contracts';

/** What the agent reports and browsers show (the contract's ProgressInfo); percentage has one decimal. */
export type Progress = ProgressInfo;

/** `final` is true for the one report that says the job's documents are all done (100 %). */
export type ProgressListener = (p: Progress, final?: boolean) => void;

export const PROGRESS_INTERVAL_MS = 1000;

/** Splits "db.collection" (database names never contain dots; collection names may). */
export function splitNamespace(ns: string): { db: string; collection: string } {
  const i = ns.indexOf('.');
  return i < 0 ? { db: ns, collection: '' } : { db: ns.slice(0, i), collection: ns.slice(i + 1) };
}

interface CollectionState {
  /** Documents the collection is expected to hold (statistics for a backup, the archive for a restore). */
  expected: number;
  /** `expected` is a count, not statistics. */
  exact: boolean;
  /** Documents done so far (the highest reading of any source). */
  seen: number;
  /** When it started being processed (an order, not a time); undefined before. */
  started: number | undefined;
  finished: boolean;
}

/**
 * Per-collection expectations and counts from several sources (the archive stream, the tool's
 * stderr); calls the listener every second, once at start and once at the end.
 *
 * - total: a finished collection counts what was dumped, the others their expectation (or what was
 *   seen, when that is already more), so the total turns exact as collections finish;
 * - estimated: some unfinished collection is still counted from statistics;
 * - percentage never goes back, stays under 100 until `stop(true)`, and is then exactly 100 with
 *   total = current;
 * - collection: the one that started first among those still being processed, so with parallel
 *   workers the name stays put until that collection is done, instead of flickering.
 */
export class ProgressTracker {
  private readonly collections = new Map<string, CollectionState>();
  private order = 0;
  private shown = '';
  private timer: NodeJS.Timeout | undefined;
  private last: Progress | undefined;
  private done = false;
  private ended = false;

  constructor(
    private readonly listener: ProgressListener | undefined,
    /** Called before each report, to pull counts from sources that do not push them. */
    private readonly beforeReport?: () => void,
  ) {}

  private state(collection: string): CollectionState {
    let s = this.collections.get(collection);
    if (!s) {
      s = { expected: 0, exact: false, seen: 0, started: undefined, finished: false };
      this.collections.set(collection, s);
    }
    return s;
  }

  /** What a collection is expected to hold; `exact` when it is a count rather than statistics. */
  expect(collection: string, documents: number, exact: boolean): void {
    const s = this.state(collection);
    s.expected = Math.max(0, documents);
    s.exact = exact;
  }

  /** The collection is being processed from now on (idempotent). */
  begin(collection: string): void {
    const s = this.state(collection);
    s.started ??= this.order++;
  }

  /** Raises a collection's count to `n` (sources are monotonic; the highest wins). */
  observe(collection: string, n: number): void {
    // Nothing to count (a view's empty segment in the archive) adds no collection to wait for.
    if (n <= 0 && !this.collections.has(collection)) return;
    const s = this.state(collection);
    if (n > 0) s.started ??= this.order++;
    if (n > s.seen) s.seen = n;
  }

  /** The collection is complete with `documents` (when known): its count is now exact. */
  finish(collection: string, documents?: number): void {
    const s = this.state(collection);
    s.started ??= this.order++;
    if (documents !== undefined && documents > s.seen) s.seen = documents;
    s.finished = true;
  }

  snapshot(): Progress {
    let current = 0;
    let total = 0;
    let estimated = false;
    let active: { name: string; started: number } | undefined;
    for (const [name, s] of this.collections) {
      current += s.seen;
      total += s.finished || this.done ? s.seen : Math.max(s.expected, s.seen);
      if (!s.finished && !this.done) {
        if (!s.exact) estimated = true;
        if (s.started !== undefined && (!active || s.started < active.started))
          active = { name, started: s.started };
      }
    }
    if (active) this.shown = active.name;
    let percentage: number;
    if (this.done) percentage = 100;
    else {
      const raw = total > 0 ? Math.min(99.9, Math.floor((current / total) * 1000) / 10) : 0;
      // Statistics that were too high make the total drop as collections finish (the bar jumps
      // ahead); a collection holding more than expected raises the total with the count. Neither
      // may move the bar back.
      percentage = Math.max(raw, this.last?.percentage ?? 0);
    }
    return { current, total, percentage, collection: this.shown, estimated };
  }

  /** Reports now and every `intervalMs` until stop; after stop it does nothing. */
  start(intervalMs = PROGRESS_INTERVAL_MS): void {
    if (this.ended || this.timer) return;
    this.emit(false);
    this.timer = setInterval(() => this.emit(false), intervalMs);
    this.timer.unref();
  }

  /**
   * Stops the timer. A successful job reports 100 % once (later calls do nothing), as soon as the
   * documents are all done — a backup calls it when mongodump has exited, before the encrypted
   * file is complete, so the report cannot come after the upload's completion.
   */
  stop(success: boolean): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (success && !this.ended) {
      this.done = true;
      this.emit(true);
    }
    this.ended = true;
  }

  get lastReported(): Progress | undefined {
    return this.last;
  }

  private emit(final: boolean): void {
    try {
      this.beforeReport?.();
    } catch {
      // progress sources are best effort
    }
    this.last = this.snapshot();
    try {
      this.listener?.(this.last, final);
    } catch {
      // a failing listener must not break a backup
    }
  }
}
