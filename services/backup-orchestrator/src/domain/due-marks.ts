import type { BackupRecord, DatabaseStore, RetentionDueStore } from '../store/types.js';

/**
 * The events that make work due before its time: the scheduler and the retention sweep visit only
 * what is due (jobs/due-visitor.ts), so whatever changes their answer files it under now.
 */
export function dueMarks(deps: {
  databases: Pick<DatabaseStore, 'dueAllOf' | 'setDue' | 'wakeParked'>;
  retentionDue: Pick<RetentionDueStore, 'mark'>;
  now: () => Date;
}) {
  const { databases, retentionDue, now } = deps;
  return {
    /** The schedule, the retention rule or the plan changed: every database and the sweep look again. */
    async settingsChanged(userId: string): Promise<void> {
      await databases.dueAllOf(userId, now());
      await retentionDue.mark(userId, now());
    },
    /** A database was turned on or off (which may change which others are active). */
    databasesChanged: (userId: string) => databases.dueAllOf(userId, now()),
    /** An agent registered: databases parked while no agent reported them are due again. */
    agentRegistered: (userId: string) => databases.wakeParked(userId, now()),
    /**
     * A backup finished: retention may now keep a different set (GFS), and a failed one may leave
     * its slot without a backup.
     */
    async backupFinished(b: Pick<BackupRecord, 'userId' | 'databaseName' | 'status'>): Promise<void> {
      if (b.status === 'failed') await databases.setDue(b.userId, b.databaseName, now());
      await retentionDue.mark(b.userId, now());
    },
  };
}
export type DueMarks = ReturnType<typeof dueMarks>;
