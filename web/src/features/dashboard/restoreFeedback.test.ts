import { formatBackupDate } from '../../lib/format';
import {
  restoreCollectionsText,
  restoreCountsText,
  restoredBackupText,
  restoreFinishedToast,
  restoreSourceText,
  restoreTargetText,
} from './restoreFeedback';

const at = '2025-03-04T05:06:07.089Z';

describe('restore texts', () => {
  it('counts documents restored and failed in full', () => {
    expect(restoreCountsText({ documentsRestored: 12_345, documentsFailed: 0 })).toBe(
      '12,345 documents restored, 0 failed',
    );
    expect(restoreCountsText({ documentsRestored: 1, documentsFailed: 2 })).toBe(
      '1 document restored, 2 failed',
    );
  });

  it('names the backup by its timestamp, when the restore kept it', () => {
    expect(restoredBackupText({ backupTimestamp: at })).toBe(`Backup of ${formatBackupDate(at)}`);
    expect(restoredBackupText({})).toBeNull();
  });
});

describe('source and target of a restore (restore anywhere)', () => {
  it('names the source only when the restore went elsewhere', () => {
    const same = {
      databaseName: 'shop',
      sourceDatabaseName: 'shop',
      sourceAgent: 'web-1',
      targetAgent: 'web-1',
    };
    expect(restoreSourceText(same)).toBeNull();
    expect(restoreSourceText({ databaseName: 'shop' })).toBeNull(); // older records
    expect(restoreSourceText({ ...same, databaseName: 'shop-copy' })).toBe("From 'shop' on web-1");
    expect(restoreSourceText({ ...same, targetAgent: 'dr-1' })).toBe("From 'shop' on web-1");
    expect(restoreTargetText({ targetAgent: 'dr-1' })).toBe('on dr-1');
    expect(restoreTargetText({})).toBeNull();
  });

  it('lists the chosen collections', () => {
    expect(restoreCollectionsText({ collections: ['customers', 'events'] })).toBe(
      'Collections: customers, events',
    );
    expect(restoreCollectionsText({})).toBeNull();
  });
});

describe('restoreFinishedToast', () => {
  const restore = { documentsRestored: 300, documentsFailed: 0, backupTimestamp: at };

  it('says which database was restored from which backup, and the counts', () => {
    expect(restoreFinishedToast({ status: 'completed', databaseName: 'shop', error: null, restore })).toEqual(
      {
        title: 'Restore completed',
        description: `shop was restored from the backup of ${formatBackupDate(at)}. 300 documents restored, 0 failed.`,
        type: 'success',
      },
    );
  });

  it('gives the reason of a failure', () => {
    expect(
      restoreFinishedToast({
        status: 'failed',
        databaseName: 'shop',
        error: '2 documents failed to restore',
        restore: { ...restore, documentsRestored: 298, documentsFailed: 2 },
      }),
    ).toEqual({
      title: 'Restore failed',
      description: `Restoring shop from the backup of ${formatBackupDate(at)} failed. 2 documents failed to restore. 298 documents restored, 2 failed.`,
      type: 'error',
    });
  });

  it('still says how it ended when the record could not be reloaded', () => {
    expect(
      restoreFinishedToast({
        status: 'failed',
        databaseName: undefined,
        error: 'wrong key',
        restore: undefined,
      }),
    ).toEqual({
      title: 'Restore failed',
      description: 'Restoring the database failed. wrong key.',
      type: 'error',
    });
  });
});
