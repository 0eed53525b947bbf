import { runMigrate } from '@coffer/common';
import { orchestratorDbEnv } from './config.js';
import { orchestratorDatabase } from './migrations.js';

// The image's one-shot migrate step (docs/operations.md, "Upgrades"): `node dist/migrate.js`.
void runMigrate('backup-orchestrator', orchestratorDbEnv, orchestratorDatabase);
