import type { Logger } from '@coffer/common';
import type { Backups } from '../domain/backups.js';
import type { RetentionInForce } from '../domain/retention-in-force.js';
import { HOUR_MS, RETENTION_OPTIONS } from '../domain/rules.js';
import type { BackupStore, RestoreStore } from '../store/types.js';

export { effectiveRetentionHours } from '../domain/retention-in-force.js';

/** A deletion claim older than this belongs to a worker that died; another takes it over. */
export const DELETION_LEASE_MS = 10 * 60_000;
/** Bounds one pass; the next tick continues. */
export const MAX_DELETIONS_PER_TICK = 500;
const SHORTEST_RETENTION = RETENTION_OPTIONS[0];

/**
 * Deletes completed and failed backups older than their owner's retention, one at a time: a
 * conditional update claims each (status → deleting), then the blob goes, then the record, then
 * backup.backup.deleted (type auto). Two replicas never claim the same backup; a backup being
 * restored is skipped until its restore ends.
 */
export function retention(deps: {
  stores: {
    backups: Pick<
      BackupStore,
      'usersWithFinishedBefore' | 'claimExpired' | 'reclaimStaleDeletion' | 'transition'
    >;
    restores: Pick<RestoreStore, 'activeForBackup'>;
  };
  backups: Pick<Backups, 'finishDeletion'>;
  retentionOf: RetentionInForce;
  now: () => Date;
  log: Pick<Logger, 'info' | 'warn'>;
}) {
  const { stores, retentionOf } = deps;

  return {
    /** One pass; returns how many backups it deleted. */
    async tick(): Promise<number> {
      const now = deps.now();
      let deleted = 0;
      for (;;) {
        if (deleted >= MAX_DELETIONS_PER_TICK) return deleted;
        const stale = await stores.backups.reclaimStaleDeletion(
          new Date(now.getTime() - DELETION_LEASE_MS),
          now,
        );
        if (!stale) break;
        await deps.backups.finishDeletion(stale, stale.deleteReason ?? 'auto');
        deleted++;
      }
      const oldest = new Date(now.getTime() - SHORTEST_RETENTION * HOUR_MS);
      for (const userId of await stores.backups.usersWithFinishedBefore(oldest)) {
        const hours = await retentionOf(userId);
        // A deleted account keeps only backups under its retention lock (domain/account-cleanup.ts):
        // each goes once its date has passed (claimExpired never takes a locked one).
        const cutoff = hours === null ? now : new Date(now.getTime() - hours * HOUR_MS);
        const skip: string[] = [];
        for (;;) {
          if (deleted >= MAX_DELETIONS_PER_TICK) return deleted;
          const before = await stores.backups.claimExpired(userId, cutoff, now, skip);
          if (!before) break;
          if ((await stores.restores.activeForBackup(before.id)).length) {
            await stores.backups.transition(
              { id: before.id, status: ['deleting'] },
              { status: before.status, deletingSince: null, deleteReason: null },
            );
            skip.push(before.id);
            continue;
          }
          await deps.backups.finishDeletion({ ...before, status: 'deleting', deleteReason: 'auto' }, 'auto');
          deleted++;
        }
      }
      if (deleted) deps.log.info({ deleted }, 'retention deleted expired backups');
      return deleted;
    },
  };
}
export type Retention = ReturnType<typeof retention>;
