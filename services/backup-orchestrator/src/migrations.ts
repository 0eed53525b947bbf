import type { DataMigration, ServiceDatabase } from '@coffer/common';
import { orchestratorModels, type OrchestratorModels } from './model.js';

/**
 * The orchestrator's data migrations, oldest first; the migrate step applies those its database has
 * no record of (docs/operations.md, "Upgrades"). Never edit or reorder a released one: add another.
 */
export const ORCHESTRATOR_MIGRATIONS: readonly DataMigration[] = [
  {
    // Settings saved before GFS retention existed have no mode and read as 'days'; this writes that
    // down, so every stored setting says its mode (no query needs it: the sweep asks for 'gfs').
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
