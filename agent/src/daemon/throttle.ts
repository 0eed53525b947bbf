/**
 * Passes values on at most once per `intervalMs`: the first at once, later ones when the interval
 * has passed, keeping only the newest meanwhile (a trailing send). `stop()` drops what is pending,
 * so nothing is sent after a job has ended (a late "in progress" would contradict "completed").
 */
export class Throttle<T> {
  private lastSent = -Infinity;
  private pending: { value: T } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly intervalMs: number,
    private readonly send: (value: T) => void,
    private readonly now: () => number = Date.now,
  ) {}

  push(value: T): void {
    if (this.stopped) return;
    const wait = this.lastSent + this.intervalMs - this.now();
    if (wait <= 0 && !this.timer) {
      this.emit(value);
      return;
    }
    this.pending = { value };
    if (!this.timer) {
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          const p = this.pending;
          this.pending = undefined;
          if (p && !this.stopped) this.emit(p.value);
        },
        Math.max(0, wait),
      );
      this.timer.unref?.();
    }
  }

  /**
   * Sends `value` at once, whatever the interval, dropping what is pending: the one reading that
   * must not be lost (a job's final 100 %), sent before the job's end is reported.
   */
  flush(value: T): void {
    if (this.stopped) return;
    this.pending = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.emit(value);
  }

  stop(): void {
    this.stopped = true;
    this.pending = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private emit(value: T): void {
    this.lastSent = this.now();
    try {
      this.send(value);
    } catch {
      // progress is best effort
    }
  }
}
