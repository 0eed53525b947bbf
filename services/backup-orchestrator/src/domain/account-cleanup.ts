import type { Logger } from '@coffer/common';
import type { BlobStore } from '../clients.js';
import type { Stores } from '../store/types.js';

/**
 * A deleted account takes its orchestrator data along: agents first (so no new job can be
 * dispatched), then databases, settings, restores, and each backup after its blob. Every step is
 * idempotent, so a redelivered event finishes what a crashed attempt began.
 */
export function accountCleanup(deps: {
  stores: {
    agents: Pick<Stores['agents'], 'removeByUser'>;
    databases: Pick<Stores['databases'], 'removeByUser'>;
    settings: Pick<Stores['settings'], 'remove'>;
    restores: Pick<Stores['restores'], 'removeByUser'>;
    backups: Pick<Stores['backups'], 'ofUser' | 'remove'>;
  };
  blobs: Pick<BlobStore, 'delete'>;
  log: Pick<Logger, 'info'>;
}) {
  const { stores } = deps;
  return {
    async userDeleted(userId: string): Promise<void> {
      await stores.agents.removeByUser(userId);
      await stores.databases.removeByUser(userId);
      await stores.settings.remove(userId);
      await stores.restores.removeByUser(userId);
      const backups = await stores.backups.ofUser(userId);
      for (const b of backups) {
        await deps.blobs.delete(userId, b.id);
        await stores.backups.remove(b.id);
      }
      deps.log.info({ userId, backups: backups.length }, "removed a deleted account's backup data");
    },
  };
}
