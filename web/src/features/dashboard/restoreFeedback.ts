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

/**
 * Where the restore went, under the Database column: 'on web-1' (the restoring agent), when known.
 */
export function restoreTargetText(r: Pick<Restore, 'targetAgent'>): string | null {
  return r.targetAgent ? `on ${r.targetAgent}` : null;
}

/**
 * Where the backup came from, for a restore into another database or onto another agent:
 * "From 'shop' on web-1"; null for the spec's restore into the backup's own database and agent.
 */
export function restoreSourceText(
  r: Pick<Restore, 'databaseName' | 'sourceDatabaseName' | 'sourceAgent' | 'targetAgent'>,
): string | null {
  const source = r.sourceDatabaseName ?? r.databaseName;
  if (source === r.databaseName && (r.sourceAgent ?? '') === (r.targetAgent ?? '')) return null;
  return `From '${source}'${r.sourceAgent ? ` on ${r.sourceAgent}` : ''}`;
}

/** 'Collections: customers, events' when only some were restored. */
export function restoreCollectionsText(r: Pick<Restore, 'collections'>): string | null {
  return r.collections?.length ? `Collections: ${r.collections.join(', ')}` : null;
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
