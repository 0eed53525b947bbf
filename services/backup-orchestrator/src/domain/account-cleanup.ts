import type { Logger } from '@coffer/common';
import type { Stores } from '../store/types.js';
import { lockHolds } from './retention-lock.js';

/**
 * A deleted account takes its orchestrator data along (docs/architecture.md, "Deleting an
 * account"): agents first, so no new job can be dispatched to them, then databases (so the
 * scheduler finds nothing due), settings, restores, and the backup records, pending and running
 * ones included (but not finished ones under the retention lock): a job dropped here answers its
 * agent's late report with 'not found'. The blobs are storage's own, removed by its consumer of
 * the same event, so this cascade does not wait for storage to be up. Every step is idempotent, so a redelivered event finishes what a crashed
 * attempt began.
 */
export function accountCleanup(deps: {
  stores: {
    agents: Pick<Stores['agents'], 'removeByUser'>;
    databases: Pick<Stores['databases'], 'removeByUser'>;
    settings: Pick<Stores['settings'], 'remove'>;
    restores: Pick<Stores['restores'], 'removeByUser'>;
    verifications: Pick<Stores['verifications'], 'removeByUser'>;
    backups: Pick<Stores['backups'], 'ofUser' | 'remove'>;
    retentionDue: Pick<Stores['retentionDue'], 'mark' | 'remove'>;
  };
  now?: () => Date;
  log: Pick<Logger, 'info'>;
}) {
  const { stores } = deps;
  const now = deps.now ?? (() => new Date());
  return {
    async userDeleted(userId: string): Promise<void> {
      await stores.agents.removeByUser(userId);
      await stores.databases.removeByUser(userId);
      await stores.settings.remove(userId);
      await stores.restores.removeByUser(userId);
      await stores.verifications.removeByUser(userId);
      const backups = await stores.backups.ofUser(userId);
      // Backups under the retention lock stay until their date, whoever deleted the account; the
      // retention sweep removes each then (jobs/retention.ts), with its blob.
      const at = now();
      const locked = backups.filter((b) => lockHolds(b, at));
      for (const b of backups) if (!lockHolds(b, at)) await stores.backups.remove(b.id);
      // The sweep files its next pass at the first lock date; with nothing locked, nothing is left to sweep.
      if (locked.length) await stores.retentionDue.mark(userId, at);
      else await stores.retentionDue.remove(userId);
      deps.log.info(
        { userId, backups: backups.length - locked.length, keptLocked: locked.length },
        "removed a deleted account's agents, databases and backups",
      );
    },
  };
}
