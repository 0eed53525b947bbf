// What a progress block says (product §4 "Progress block", §3 progress object). Pure; the block itself
// is ProgressBlock.tsx.
import type { ProgressInfo } from '@coffer/contracts';
import { formatCount } from '../../lib/format';

/**
 * The reading to show for a job in `status`. A completed job shows 100 % whatever the last reading
 * said: progress travels apart from the completion (plain NATS vs the job's event), so the last
 * reading that arrived may be an earlier one, and an agent that counted more than expected stops
 * under 100 % until it is done.
 */
export function displayedProgress(status: string, progress: ProgressInfo): ProgressInfo {
  const percentage = Math.max(
    0,
    Math.min(100, Number.isFinite(progress.percentage) ? progress.percentage : 0),
  );
  if (status !== 'completed') return { ...progress, percentage };
  const documents = Math.max(progress.current, progress.total);
  return { ...progress, current: documents, total: documents, percentage: 100 };
}

/** '12.6K / 300K documents', or '12.6K / about 300K documents' while the total is an estimate. */
export function progressCounts(progress: ProgressInfo, unit = 'documents'): string {
  const about = progress.estimated ? 'about ' : '';
  return `${formatCount(progress.current)} / ${about}${formatCount(progress.total)} ${unit}`;
}

/**
 * Whether a live event may still change a job the browser already saw end: a progress reading
 * ('in-progress') that overtook nothing but arrived after the job's completed or failed event is
 * stale and must neither bring the row back to 'In Progress' nor show a bar again.
 */
export function isStaleLiveEvent(endedBefore: boolean, status: string): boolean {
  return endedBefore && status === 'in-progress';
}

/**
 * The reading to keep when another arrives for the same job. Readings may reach the browser out of
 * order (each gateway relays some of them), so one that would move the bar back is older news.
 */
export function newerReading(kept: ProgressInfo | null | undefined, arrived: ProgressInfo): ProgressInfo {
  if (!kept) return arrived;
  return arrived.percentage < kept.percentage || arrived.current < kept.current ? kept : arrived;
}
