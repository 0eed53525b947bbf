import type { Logger } from '@coffer/common';
import type { Backups } from '../domain/backups.js';
import { daysRule, gfsVerdicts } from '../domain/gfs.js';
import type { RetentionPolicyInForce } from '../domain/retention-in-force.js';
import { nextRetentionPass } from '../domain/next-retention-pass.js';
import { HOUR_MS } from '../domain/rules.js';
import type {
  BackupRecord,
  BackupStore,
  RestoreStore,
  RetentionDueStore,
  VerificationStore,
  SettingsStore,
} from '../store/types.js';
import { dueVisitor, type DueRow, type DueVerdict } from './due-visitor.js';

export { effectiveRetentionHours } from '../domain/retention-in-force.js';

/** A deletion claim older than this belongs to a worker that died; another takes it over. */
export const DELETION_LEASE_MS = 10 * 60_000;
/** Bounds one pass; the next tick continues. */
export const MAX_DELETIONS_PER_TICK = 500;
/** "Every finished backup" for the one query that still asks by date (the catch-up's). */
const FAR_FUTURE = new Date(8.64e15);

/**
 * Deletes the backups its owner's retention rule no longer keeps, one at a time: a conditional
 * update claims each (status → deleting, never under the retention lock), then the blob goes, then
 * the record, then backup.backup.deleted (type auto, with the rule that chose it). Two replicas
 * never claim the same backup; a backup being restored is skipped until its restore ends.
 *
 * "Keep N days" (the default) deletes finished backups older than N days. GFS (domain/gfs.ts)
 * deletes what gfsVerdicts rejects, the same function the settings preview shows.
 *
 * A pass visits only the accounts that are due (jobs/due-visitor.ts): after each account it files
 * the next moment one of its backups may go (domain/next-retention-pass.ts); a backup finishing or
 * a policy changing files it at once (domain/due-marks.ts). Accounts with nothing to prune cost
 * nothing, however many backups they keep.
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
    retentionDue: Pick<
      RetentionDueStore,
      'mark' | 'markMissing' | 'dueIn' | 'catchUpDue' | 'remove' | 'migrated' | 'setMigrated'
    >;
  };
  backups: Pick<Backups, 'finishDeletion'>;
  policyOf: RetentionPolicyInForce;
  now: () => Date;
  log: Pick<Logger, 'info' | 'warn'>;
}) {
  const { stores, policyOf } = deps;
  const visitor = dueVisitor<DueRow & { userId: string }>({
    page: async (bucket, after, limit) =>
      (await stores.retentionDue.dueIn(bucket, after, limit)).map((r) => ({ ...r, key: r.userId })),
    // Accounts with backups from before passes were filed: one pass each now. The one read of
    // every backup, once (a record says it was done; a crash before it just files them again).
    catchUp: async (now) => {
      if (!(await stores.retentionDue.migrated())) {
        const users = new Set([
          ...(await stores.settings.gfsUsers()),
          ...(await stores.backups.usersWithFinishedBefore(FAR_FUTURE)),
        ]);
        await stores.retentionDue.markMissing([...users], now);
        await stores.retentionDue.setMigrated();
      }
      await stores.retentionDue.catchUpDue(now);
    },
    refile: (r, now) => stores.retentionDue.mark(r.userId, now),
  });

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

  /**
   * One account's pass: deletes what its rule no longer keeps (as far as `room` allows) and files
   * its next pass. 'waiting' when it ran out of room (it stays due).
   */
  async function sweepAccount(
    userId: string,
    now: Date,
    room: () => boolean,
    deleted: () => void,
  ): Promise<DueVerdict> {
    const policy = await policyOf(userId);
    // A backup a restore is reading waits: the account stays due, looked at again next tick.
    let blocked = false;
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
        if (!room()) return 'waiting';
        const claimed = await stores.backups.claimForRetention(userId, v.backup.id, now, v.rule!);
        if (!claimed) continue;
        if (await deleteClaimed(claimed, v.rule!)) deleted();
        else blocked = true;
      }
    } else {
      // A deleted account keeps only backups under its retention lock (domain/account-cleanup.ts):
      // each goes once its date has passed (claimExpired never takes a locked one).
      const cutoff = policy ? new Date(now.getTime() - policy.hours * HOUR_MS) : now;
      const rule = policy ? daysRule(policy.hours) : 'The account was deleted';
      const skip: string[] = [];
      for (;;) {
        if (!room()) return 'waiting';
        const before = await stores.backups.claimExpired(userId, cutoff, now, skip, rule);
        if (!before) break;
        if (await deleteClaimed(before, rule)) deleted();
        else skip.push(before.id);
      }
      blocked = skip.length > 0;
    }
    const next = nextRetentionPass(await stores.backups.ofUser(userId), policy, now);
    if (!policy && !next) await stores.retentionDue.remove(userId);
    // Never filed in the past (a bucket already visited): a backup still due (claimed by a restore,
    // or changed under the claim) is looked at again next tick.
    else await stores.retentionDue.mark(userId, blocked || (next && next < now) ? now : next);
    return 'handled';
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
      const room = () => deleted < MAX_DELETIONS_PER_TICK;
      await visitor.visit(
        now,
        ({ userId }) =>
          sweepAccount(userId, now, room, () => {
            deleted++;
          }),
        room,
      );
      if (deleted) deps.log.info({ deleted }, 'retention deleted expired backups');
      return deleted;
    },
  };
}
export type Retention = ReturnType<typeof retention>;
