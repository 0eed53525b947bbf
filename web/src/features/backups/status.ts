// Backup and restore statuses as the UI shows them (product §4, §8). Pure; the badge lives in StatusBadge.tsx.
import type { Restore } from '../../api/generated';

/** 'in-progress' → 'In Progress', 'completed' → 'Completed'. */
export function statusLabel(status: string): string {
  return String(status)
    .split(/[-_\s]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

/** pending yellow, in-progress blue, completed green, failed red, anything else grey. */
export function statusPalette(status: string): string {
  switch (status) {
    case 'completed':
      return 'green';
    case 'failed':
      return 'red';
    case 'pending':
      return 'yellow';
    case 'in-progress':
      return 'blue';
    default:
      return 'gray';
  }
}

export const isActiveStatus = (status: string) => status === 'pending' || status === 'in-progress';

export const isFinalStatus = (status: string) => status === 'completed' || status === 'failed';

export const RESTORE_ERROR_MAX = 50;

/** Error text cut to 50 characters plus an ellipsis. */
export function truncateError(error: string, max = RESTORE_ERROR_MAX): string {
  return error.length > max ? `${error.slice(0, max)}…` : error;
}

/** The Details column of the restore history: the (cut) error, else a text for the status. */
export function restoreDetail(restore: Pick<Restore, 'status' | 'error'>): string {
  if (restore.error) return truncateError(restore.error);
  switch (restore.status) {
    case 'completed':
      return 'Restore completed successfully';
    case 'failed':
      return 'Restore failed';
    case 'pending':
      return 'Restore in progress';
    default:
      return 'Waiting for agent';
  }
}

/** Step 3 of the restore dialog: the typed text must equal the database name exactly. */
export const restoreConfirmMatches = (typed: string, databaseName: string) => typed === databaseName;

export const restoreMismatchMessage = (databaseName: string) => `Please type '${databaseName}' to confirm`;
