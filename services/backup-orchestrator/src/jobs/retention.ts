import { AppError, type Logger } from '@coffer/common';
import type { PlanSource } from '../clients.js';
import type { Backups } from '../domain/backups.js';
import { DEFAULT_SETTINGS, HOUR_MS, RETENTION_OPTIONS } from '../domain/rules.js';
import type { BackupStore, RestoreStore, SettingsStore } from '../store/types.js';

/** A deletion claim older than this belongs to a worker that died; another takes it over. */
export const DELETION_LEASE_MS = 10 * 60_000;
/** Bounds one pass; the next tick continues. */
export const MAX_DELETIONS_PER_TICK = 500;
const SHORTEST_RETENTION = RETENTION_OPTIONS[0];

/** The retention that applies: the user's choice, no longer than the plan allows, never under 3 days. */
export function effectiveRetentionHours(setting: number, planLimit: number | undefined): number {
  const bounded = planLimit === undefined ? setting : Math.min(setting, planLimit);
  return Math.max(SHORTEST_RETENTION, bounded);
}

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
    settings: Pick<SettingsStore, 'get'>;
  };
  backups: Pick<Backups, 'finishDeletion'>;
  plans: PlanSource;
  now: () => Date;
  log: Pick<Logger, 'info' | 'warn'>;
}) {
  const { stores } = deps;

  async function retentionOf(userId: string): Promise<number | null> {
    const setting = ((await stores.settings.get(userId)) ?? DEFAULT_SETTINGS).retention;
    try {
      return effectiveRetentionHours(setting, (await deps.plans.planOf(userId)).retentionLimit);
    } catch (err) {
      if (err instanceof AppError && err.kind === 'NOT_FOUND') return null; // account deleted: its own cleanup runs
      deps.log.warn({ err, userId }, 'plan unavailable; applying the saved retention');
      return effectiveRetentionHours(setting, undefined);
    }
  }

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
        if (hours === null) continue;
        const cutoff = new Date(now.getTime() - hours * HOUR_MS);
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
