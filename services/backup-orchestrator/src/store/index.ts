import type { OrchestratorModels } from '../model.js';
import type { Stores } from './types.js';
import { agentStore } from './agents.js';
import { databaseStore } from './databases.js';
import { backupStore, restoreStore } from './jobs.js';
import { leaseStore } from './leases.js';
import { retentionDueStore } from './retention-due.js';
import { settingsStore } from './settings.js';
import { verificationStore } from './verifications.js';

/** The mongoose-backed stores; the only code that touches the database. */
export function mongoStores(models: OrchestratorModels): Stores {
  return {
    leases: leaseStore(models),
    agents: agentStore(models),
    databases: databaseStore(models),
    backups: backupStore(models),
    restores: restoreStore(models),
    verifications: verificationStore(models),
    settings: settingsStore(models),
    retentionDue: retentionDueStore(models),
  };
}
