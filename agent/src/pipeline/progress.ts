// Progress reports `{current, total, percentage, collection}` (product spec §3) for backups and
// restores, emitted at least once a second while a job runs.
import type { ProgressInfo } from '@coffer/contracts';

/** What the agent reports and browsers show (the contract's ProgressInfo); percentage has one decimal. */
export type Progress = ProgressInfo;

export type ProgressListener = (p: Progress) => void;

export const PROGRESS_INTERVAL_MS = 1000;

/** Splits "db.collection" (database names never contain dots; collection names may). */
export function splitNamespace(ns: string): { db: string; collection: string } {
  const i = ns.indexOf('.');
  return i < 0 ? { db: ns, collection: '' } : { db: ns.slice(0, i), collection: ns.slice(i + 1) };
}

/**
 * Keeps per-collection counts from one or more sources (the archive stream, the tool's stderr)
 * and calls the listener every second, plus once at start and once at the end.
 */
export class ProgressTracker {
  private readonly counts = new Map<string, number>();
  private collection = '';
  private timer: NodeJS.Timeout | undefined;
  private last: Progress | undefined;
  private done = false;

  constructor(
    private total: number,
    private readonly listener: ProgressListener | undefined,
    /** Called before each report, to pull counts from sources that do not push them. */
    private readonly beforeReport?: () => void,
  ) {}

  /** Raises a collection's count to `n` (sources are monotonic; the highest wins). */
  observe(collection: string, n: number): void {
    if (n > (this.counts.get(collection) ?? 0)) this.counts.set(collection, n);
  }

  /** The collection shown as being processed. */
  setCollection(collection: string): void {
    this.collection = collection;
  }

  setTotal(total: number): void {
    this.total = total;
  }

  snapshot(): Progress {
    let current = 0;
    for (const n of this.counts.values()) current += n;
    const total = Math.max(this.total, this.done ? current : 0);
    const raw = total > 0 ? (current / total) * 100 : this.done ? 100 : 0;
    const percentage = Math.round(Math.min(this.done ? 100 : 99.9, raw) * 10) / 10;
    return { current, total, percentage, collection: this.collection };
  }

  start(intervalMs = PROGRESS_INTERVAL_MS): void {
    this.emit();
    this.timer = setInterval(() => this.emit(), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer; a successful job reports 100% once more. */
  stop(success: boolean): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (success) {
      this.done = true;
      this.emit();
    }
  }

  get lastReported(): Progress | undefined {
    return this.last;
  }

  private emit(): void {
    try {
      this.beforeReport?.();
    } catch {
      // progress sources are best effort
    }
    this.last = this.snapshot();
    try {
      this.listener?.(this.last);
    } catch {
      // a failing listener must not break a backup
    }
  }
}
