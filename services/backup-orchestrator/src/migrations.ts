import type { DataMigration, ServiceDatabase } from '@coffer/common';
import { orchestratorModels, type OrchestratorModels } from './model.js';

/**
 * The orchestrator's data migrations, oldest first; the migrate step applies those its database has
 * no record of (docs/operations.md, "Upgrades"). Never edit or reorder a released one: add another.
 */
export const ORCHESTRATOR_MIGRATIONS: readonly DataMigration[] = [
  {
    // Settings saved before GFS retention existed have no mode and read as 'days'; writing it down
    // lets a query on the mode (the retention sweep's) see every user without an $exists clause.
    id: '0001-settings-retention-mode',
    up: async (conn) => {
      await conn
        .collection('settings')
        .updateMany({ retentionMode: { $exists: false } }, { $set: { retentionMode: 'days' } });
    },
  },
];

export const orchestratorDatabase: ServiceDatabase<OrchestratorModels> = {
  models: orchestratorModels,
  migrations: ORCHESTRATOR_MIGRATIONS,
};
