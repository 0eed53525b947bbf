// What the dashboard tells about a restore (issue 10): which backup it came from, how many documents
// were restored and failed, and the toast when it ends. Pure, so the texts are unit-tested.
import type { Restore } from '../../api/generated';
import { formatBackupDate } from '../../lib/format';

const count = (n: number) => n.toLocaleString('en-US');
const documents = (n: number) => `${count(n)} document${n === 1 ? '' : 's'}`;

/** '1,200 documents restored, 0 failed'. */
export function restoreCountsText(r: Pick<Restore, 'documentsRestored' | 'documentsFailed'>): string {
  return `${documents(r.documentsRestored)} restored, ${count(r.documentsFailed)} failed`;
}

/** 'Backup of Mar 4, 2025 5:06 AM', or null for restores recorded before the timestamp was kept. */
export function restoredBackupText(r: Pick<Restore, 'backupTimestamp'>): string | null {
  return r.backupTimestamp ? `Backup of ${formatBackupDate(r.backupTimestamp)}` : null;
}

export interface RestoreToast {
  title: string;
  description: string;
  type: 'success' | 'error';
}

/**
 * The toast when a restore ends. `restore` is its record once reloaded (counts and backup); without
 * it the toast still says which database and how it ended.
 */
export function restoreFinishedToast(input: {
  status: 'completed' | 'failed';
  databaseName: string | undefined;
  error: string | null | undefined;
  restore: Pick<Restore, 'documentsRestored' | 'documentsFailed' | 'backupTimestamp'> | undefined;
}): RestoreToast {
  const { status, databaseName, error, restore } = input;
  const from = restore?.backupTimestamp
    ? ` from the backup of ${formatBackupDate(restore.backupTimestamp)}`
    : '';
  const counts = restore ? ` ${restoreCountsText(restore)}.` : '';
  if (status === 'completed') {
    return {
      title: 'Restore completed',
      description: `${databaseName ?? 'The database'} was restored${from}.${counts}`,
      type: 'success',
    };
  }
  const reason = error ? ` ${error.replace(/\.?$/, '.')}` : '';
  return {
    title: 'Restore failed',
    description: `Restoring ${databaseName ?? 'the database'}${from} failed.${reason}${counts}`,
    type: 'error',
  };
}
