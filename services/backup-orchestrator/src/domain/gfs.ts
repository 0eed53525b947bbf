// The grandfather-father-son retention rule (issue 20, docs/architecture.md "GFS retention"): one
// pure function, used by the sweep that deletes and by the preview that shows what it would delete.
import { describeGfs, GFS_PERIODS, type GfsCounts, type GfsPeriod } from '@coffer/contracts';
import type { BackupRecord } from '../store/types.js';
import { lockHolds } from './retention-lock.js';
import { daysText, HOUR_MS } from './rules.js';

/** Why a backup stays: a period keeps it, it is a database's floor, it is locked, or a recent failure. */
export type KeepReason = GfsPeriod | 'newest' | 'verified' | 'locked' | 'recent-failure';

export interface RetentionVerdict {
  backup: BackupRecord;
  keep: boolean;
  /** Every reason it stays (several periods may keep the same backup); empty when it goes. */
  reasons: KeepReason[];
  /** Why it goes, in product words: the BACKUP_DELETED_AUTO entry's rule. */
  rule?: string;
}

export interface GfsPolicy {
  counts: GfsCounts;
  /** A failed backup is no restore point: it counts for no period and is kept this long to show in the history. */
  failedKeepHours: number;
  /** Backups a verification found whole (verified backups); their database's newest of them stays. */
  verified?: ReadonlySet<string>;
}

type Finished = BackupRecord & { status: 'completed' | 'failed' };

/** The time a backup is filed under: when it finished, as the dashboard shows it. */
const timeOf = (b: BackupRecord) => b.completedAt ?? b.createdAt;

const DAY_MS = 24 * HOUR_MS;

/** The UTC calendar period a moment belongs to, as a comparable key. Weeks start on Monday (ISO). */
export function periodKey(period: GfsPeriod, at: Date): string {
  const iso = at.toISOString();
  switch (period) {
    case 'hourly':
      return iso.slice(0, 13);
    case 'daily':
      return iso.slice(0, 10);
    case 'weekly': {
      const sinceMonday = (at.getUTCDay() + 6) % 7;
      return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()) - sinceMonday * DAY_MS)
        .toISOString()
        .slice(0, 10);
    }
    case 'monthly':
      return iso.slice(0, 7);
    case 'yearly':
      return iso.slice(0, 4);
  }
}

/**
 * Backups kept whatever the counts say, per database (completed backups newest first): the newest
 * completed one, and the newest one a verification restored and found whole (it may be older:
 * the newest may not have been verified yet, or its verification failed).
 */
const FLOORS: ReadonlyArray<{
  reason: KeepReason;
  pick: (completedNewestFirst: readonly BackupRecord[], policy: GfsPolicy) => BackupRecord | undefined;
}> = [
  { reason: 'newest', pick: (completed) => completed[0] },
  { reason: 'verified', pick: (completed, policy) => completed.find((b) => policy.verified?.has(b.id)) },
];

/**
 * Which of an account's finished backups GFS keeps at `now`. Each period independently walks a
 * database's completed backups newest first and keeps the newest one of each of its last N periods
 * that have a backup (restic's rule: a day without backups does not use up one of the N days). A
 * backup any period keeps stays. On top: each database's newest completed backup and its newest
 * verified one (reasons 'newest' and 'verified'), every backup
 * under the retention lock, and failed backups younger than `failedKeepHours`. Pending and running
 * backups (and ones being deleted) are not judged.
 *
 * Applying it is idempotent: deleting what it rejects leaves every period's kept backup the newest
 * of its period, so a second pass rejects nothing. A backup finishing meanwhile only pushes older
 * ones further out, so deleting from a slightly old verdict never deletes what the new one keeps.
 */
export function gfsVerdicts(
  backups: readonly BackupRecord[],
  policy: GfsPolicy,
  now: Date,
): RetentionVerdict[] {
  const finished = backups.filter((b): b is Finished => b.status === 'completed' || b.status === 'failed');
  const reasons = new Map<string, Set<KeepReason>>(finished.map((b) => [b.id, new Set()]));
  const keep = (b: BackupRecord, why: KeepReason) => reasons.get(b.id)!.add(why);

  const byDatabase = new Map<string, Finished[]>();
  for (const b of finished) byDatabase.set(b.databaseName, [...(byDatabase.get(b.databaseName) ?? []), b]);
  for (const list of byDatabase.values()) {
    const completed = list
      .filter((b) => b.status === 'completed')
      .sort((a, b) => timeOf(b).getTime() - timeOf(a).getTime() || b.id.localeCompare(a.id));
    for (const period of GFS_PERIODS) {
      let last: string | null = null;
      let periods = 0;
      for (const b of completed) {
        if (periods >= policy.counts[period]) break;
        const key = periodKey(period, timeOf(b));
        if (key === last) continue;
        last = key;
        periods++;
        keep(b, period);
      }
    }
    for (const floor of FLOORS) {
      const b = floor.pick(completed, policy);
      if (b) keep(b, floor.reason);
    }
  }

  const failedCutoff = now.getTime() - policy.failedKeepHours * HOUR_MS;
  for (const b of finished) {
    if (lockHolds(b, now)) keep(b, 'locked');
    if (b.status === 'failed' && timeOf(b).getTime() > failedCutoff) keep(b, 'recent-failure');
  }

  return finished
    .sort((a, b) => timeOf(b).getTime() - timeOf(a).getTime() || b.id.localeCompare(a.id))
    .map((b) => {
      const why = [...reasons.get(b.id)!];
      if (why.length) return { backup: b, keep: true, reasons: why };
      return { backup: b, keep: false, reasons: [], rule: gfsRule(b, policy) };
    });
}

/** The rule that deletes a backup, for the audit log and the preview. */
export function gfsRule(b: Pick<BackupRecord, 'status'>, policy: GfsPolicy): string {
  return b.status === 'failed'
    ? `GFS retention: failed backups are kept ${daysText(policy.failedKeepHours)}`
    : `GFS retention (keep ${describeGfs(policy.counts)}): not the newest backup of a kept period`;
}

/** The rule of the spec's "keep N days", in the same words, for the sweep's audit entries. */
export const daysRule = (hours: number) => `Retention: older than ${daysText(hours)}`;
