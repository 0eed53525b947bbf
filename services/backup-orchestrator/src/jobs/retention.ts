import type { Logger } from '@coffer/common';
import type { Backups } from '../domain/backups.js';
import { daysRule, gfsVerdicts } from '../domain/gfs.js';
import type { RetentionPolicyInForce } from '../domain/retention-in-force.js';
import { HOUR_MS, RETENTION_OPTIONS } from '../domain/rules.js';
import type {
  BackupRecord,
  BackupStore,
  RestoreStore,
  VerificationStore,
  SettingsStore,
} from '../store/types.js';

export { effectiveRetentionHours } from '../domain/retention-in-force.js';

/** A deletion claim older than this belongs to a worker that died; another takes it over. */
export const DELETION_LEASE_MS = 10 * 60_000;
/** Bounds one pass; the next tick continues. */
export const MAX_DELETIONS_PER_TICK = 500;
const SHORTEST_RETENTION = RETENTION_OPTIONS[0];

/**
 * Deletes the backups its owner's retention rule no longer keeps, one at a time: a conditional
 * update claims each (status → deleting, never under the retention lock), then the blob goes, then
 * the record, then backup.backup.deleted (type auto, with the rule that chose it). Two replicas
 * never claim the same backup; a backup being restored is skipped until its restore ends.
 *
 * "Keep N days" (the default) deletes finished backups older than N days. GFS (domain/gfs.ts)
 * deletes what gfsVerdicts rejects, the same function the settings preview shows.
 */
export function retention(deps: {
  stores: {
    backups: Pick<
      BackupStore,
      | 'usersWithFinishedBefore'
      | 'claimExpired'
      | 'claimForRetention'
      | 'reclaimStaleDeletion'
      | 'transition'
      | 'ofUser'
    >;
    restores: Pick<RestoreStore, 'activeForBackup'>;
    verifications: Pick<VerificationStore, 'verifiedBackupIds'>;
    settings: Pick<SettingsStore, 'gfsUsers'>;
  };
  backups: Pick<Backups, 'finishDeletion'>;
  policyOf: RetentionPolicyInForce;
  now: () => Date;
  log: Pick<Logger, 'info' | 'warn'>;
}) {
  const { stores, policyOf } = deps;

  /**
   * Deletes a claimed backup, unless a restore is reading it: then the claim is given back and the
   * backup waits for a later pass. True when it was deleted.
   */
  async function deleteClaimed(before: BackupRecord, rule: string): Promise<boolean> {
    if ((await stores.restores.activeForBackup(before.id)).length) {
      await stores.backups.transition(
        { id: before.id, status: ['deleting'] },
        { status: before.status, deletingSince: null, deleteReason: null, deleteRule: null },
      );
      return false;
    }
    await deps.backups.finishDeletion({ ...before, status: 'deleting', deleteReason: 'auto' }, 'auto', rule);
    return true;
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
        await deps.backups.finishDeletion(stale, stale.deleteReason ?? 'auto', stale.deleteRule ?? undefined);
        deleted++;
      }
      const oldest = new Date(now.getTime() - SHORTEST_RETENTION * HOUR_MS);
      // GFS accounts may lose backups younger than any "keep N days" option (an hour not kept).
      const users = new Set([
        ...(await stores.settings.gfsUsers()),
        ...(await stores.backups.usersWithFinishedBefore(oldest)),
      ]);
      for (const userId of users) {
        const policy = await policyOf(userId);
        if (policy?.gfs) {
          const verdicts = gfsVerdicts(
            await stores.backups.ofUser(userId),
            {
              counts: policy.gfs,
              failedKeepHours: policy.hours,
              verified: await stores.verifications.verifiedBackupIds(userId),
            },
            now,
          );
          for (const v of verdicts) {
            if (v.keep) continue;
            if (deleted >= MAX_DELETIONS_PER_TICK) return deleted;
            const claimed = await stores.backups.claimForRetention(userId, v.backup.id, now, v.rule!);
            if (claimed && (await deleteClaimed(claimed, v.rule!))) deleted++;
          }
          continue;
        }
        // A deleted account keeps only backups under its retention lock (domain/account-cleanup.ts):
        // each goes once its date has passed (claimExpired never takes a locked one).
        const cutoff = policy ? new Date(now.getTime() - policy.hours * HOUR_MS) : now;
        const rule = policy ? daysRule(policy.hours) : 'The account was deleted';
        const skip: string[] = [];
        for (;;) {
          if (deleted >= MAX_DELETIONS_PER_TICK) return deleted;
          const before = await stores.backups.claimExpired(userId, cutoff, now, skip, rule);
          if (!before) break;
          if (await deleteClaimed(before, rule)) deleted++;
          else skip.push(before.id);
        }
      }
      if (deleted) deps.log.info({ deleted }, 'retention deleted expired backups');
      return deleted;
    },
  };
}
export type Retention = ReturnType<typeof retention>;
