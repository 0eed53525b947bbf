import { AppError } from './errors.js';

/** A date as mails and refusals name it: 'Dec 27, 2026, 10:30 UTC' (one zone for every reader). */
export function formatLockDate(d: Date): string {
  return `${d.toLocaleString('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: 'UTC',
  })} UTC`;
}

/**
 * The refusal to delete a backup under the retention lock, the same from the orchestrator (its
 * record) and storage (its blob): 409 BACKUP_LOCKED naming the date, which the body also carries.
 */
export const backupLocked = (lockedUntil: Date) =>
  new AppError(
    'CONFLICT',
    `This backup is locked until ${formatLockDate(lockedUntil)} by your retention lock. It can be deleted after that date.`,
    'BACKUP_LOCKED',
    { lockedUntil: lockedUntil.toISOString() },
  );
