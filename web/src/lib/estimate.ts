// Time left for a running backup or restore (product §9, "Progress time estimate"). Pure: the caller
// feeds progress samples and clock readings; the React side only keeps the countdown ticking.

/** Speed samples are taken only once at least this many documents were done since the last one. */
export const MIN_SAMPLE_DELTA = 100;
/** The average speed is weighted over this many of the latest samples (newest weighs most). */
export const SPEED_SAMPLES = 3;
/** Dumps slow down on large collections and encryption/upload follows: estimates are padded. */
export const ESTIMATE_MULTIPLIER = 4;
/** A running countdown is replaced by a fresh estimate only when they differ by more than this. */
export const RESYNC_THRESHOLD_S = 15;
/** The countdown ticks every second. */
export const COUNTDOWN_TICK_MS = 1000;

export interface EstimatorState {
  /** the last point a speed sample was taken at */
  anchor: { current: number; at: number } | null;
  /** documents per second, oldest first, at most SPEED_SAMPLES */
  speeds: number[];
}

export const initialEstimator = (): EstimatorState => ({ anchor: null, speeds: [] });

/**
 * Records a progress reading (`current` documents at time `at`, ms). A new speed sample is taken
 * only when progress moved by at least MIN_SAMPLE_DELTA documents since the last sample.
 */
export function recordProgress(state: EstimatorState, current: number, at: number): EstimatorState {
  if (!state.anchor || current < state.anchor.current) {
    // first reading, or the counter went back (a new phase): start over from here
    return { anchor: { current, at }, speeds: [] };
  }
  const delta = current - state.anchor.current;
  const elapsedS = (at - state.anchor.at) / 1000;
  if (delta < MIN_SAMPLE_DELTA || elapsedS <= 0) return state;
  const speeds = [...state.speeds, delta / elapsedS].slice(-SPEED_SAMPLES);
  return { anchor: { current, at }, speeds };
}

/** Weighted average of the speed samples (weights 1, 2, 3 … newest last); null without samples. */
export function averageSpeed(speeds: readonly number[]): number | null {
  if (speeds.length === 0) return null;
  let sum = 0;
  let weights = 0;
  speeds.forEach((s, i) => {
    sum += s * (i + 1);
    weights += i + 1;
  });
  const avg = sum / weights;
  return avg > 0 && Number.isFinite(avg) ? avg : null;
}

/** The least an estimate may say, by progress: 60 s below 85 %, 48 s below 90 %, 36 s below 95 %, 24 s below 98 %. */
export function estimateFloor(percentage: number): number {
  if (percentage < 85) return 60;
  if (percentage < 90) return 48;
  if (percentage < 95) return 36;
  if (percentage < 98) return 24;
  return 0;
}

/**
 * Seconds left: remaining documents over the weighted speed, times 4, times 0.85 from 50 % and
 * 0.7 from 80 %, never under the floor for the progress reached. Null while the speed is unknown.
 */
export function estimateSeconds(
  state: EstimatorState,
  progress: { current: number; total: number; percentage: number },
): number | null {
  const speed = averageSpeed(state.speeds);
  if (speed === null) return null;
  const remaining = Math.max(0, progress.total - progress.current);
  let seconds = (remaining / speed) * ESTIMATE_MULTIPLIER;
  if (progress.percentage >= 80) seconds *= 0.7;
  else if (progress.percentage >= 50) seconds *= 0.85;
  return Math.round(Math.max(seconds, estimateFloor(progress.percentage)));
}

/**
 * The countdown after a new estimate: starts when there was none, jumps to the estimate when the
 * two differ by more than RESYNC_THRESHOLD_S, and otherwise keeps ticking undisturbed.
 */
export function resyncCountdown(countdown: number | null, estimate: number | null): number | null {
  if (estimate === null) return countdown;
  if (countdown === null) return estimate;
  return Math.abs(estimate - countdown) > RESYNC_THRESHOLD_S ? estimate : countdown;
}

/** One countdown tick (1 s); stays at 0. */
export function tickCountdown(countdown: number | null): number | null {
  return countdown === null ? null : Math.max(0, countdown - 1);
}

/** '45s', '2m 05s', '1h 03m'. */
export function formatEta(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  return `${Math.floor(s / 3600)}h ${pad(Math.floor((s % 3600) / 60))}m`;
}

/**
 * The line under the bar: 'Estimating time remaining...' until the first estimate, then 'About
 * 2m 05s remaining'. Once every document is done (100 %, the upload or the tool's last steps
 * follow) or the countdown ran out while the job still runs, 'Finishing up...' rather than a time
 * left that the next reading has not corrected yet or 'About 0s remaining'.
 */
export function etaLabel(seconds: number | null, percentage = 0): string {
  if (percentage >= 100) return 'Finishing up...';
  if (seconds === null) return 'Estimating time remaining...';
  if (Math.round(seconds) <= 0) return 'Finishing up...';
  return `About ${formatEta(seconds)} remaining`;
}

export interface Countdown {
  estimator: EstimatorState;
  /** seconds left as shown, or null while unknown */
  seconds: number | null;
}

export const initialCountdown = (): Countdown => ({ estimator: initialEstimator(), seconds: null });

/**
 * One progress reading applied to the countdown: the estimate is recomputed only when a new speed
 * sample was taken (≥ 100 documents since the last one), then resynced as described above.
 */
export function applyProgress(
  countdown: Countdown,
  progress: { current: number; total: number; percentage: number },
  at: number,
): Countdown {
  const estimator = recordProgress(countdown.estimator, progress.current, at);
  if (estimator === countdown.estimator) return countdown;
  const estimate = estimateSeconds(estimator, progress);
  return { estimator, seconds: resyncCountdown(countdown.seconds, estimate) };
}
