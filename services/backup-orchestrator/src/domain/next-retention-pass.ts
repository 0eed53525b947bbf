import type { BackupRecord } from '../store/types.js';
import type { RetentionPolicy } from './retention-in-force.js';
import { lockHolds } from './retention-lock.js';
import { HOUR_MS } from './rules.js';

/**
 * Under GFS a verdict changes when a backup finishes (marked then) and when a verification finds a
 * backup whole (not marked: it may become its database's floor and release an older one); the
 * sweep looks at a GFS account at least this often for that.
 */
export const GFS_RECHECK_MS = 24 * HOUR_MS;

type Kept = Pick<BackupRecord, 'status' | 'createdAt' | 'completedAt' | 'lockedUntil'>;

/**
 * When the retention sweep must next look at an account, given the backups it kept just now
 * (jobs/retention.ts): the first moment one of them may go. Null when none ever will without
 * news (no finished backup: a backup finishing files the account again). A backup that finishes,
 * a policy that changes, files the account at once (domain/due-marks.ts), so only the passage of
 * time is computed here.
 */
export function nextRetentionPass(
  backups: readonly Kept[],
  policy: RetentionPolicy | null,
  now: Date,
): Date | null {
  const finished = backups.filter((b) => b.status === 'completed' || b.status === 'failed');
  const lockEnd = (b: Kept) => (lockHolds(b, now) ? b.lockedUntil!.getTime() : 0);
  const times = finished.flatMap((b): number[] => {
    // A deleted account: what stays is under the lock, and goes on its date.
    if (!policy) return [Math.max(lockEnd(b), now.getTime())];
    if (!policy.gfs) return [Math.max(b.createdAt.getTime() + policy.hours * HOUR_MS, lockEnd(b))];
    if (b.status === 'failed')
      return [Math.max((b.completedAt ?? b.createdAt).getTime() + policy.hours * HOUR_MS, lockEnd(b))];
    return lockHolds(b, now) ? [lockEnd(b)] : [];
  });
  if (policy?.gfs && finished.length) times.push(now.getTime() + GFS_RECHECK_MS);
  return times.length ? new Date(Math.min(...times)) : null;
}
