import { runMigrate } from '@coffer/common';
import { storageDbEnv } from './config.js';
import { storageDatabase } from './model.js';

// The image's one-shot migrate step (docs/operations.md, "Upgrades"): `node dist/migrate.js`.
void runMigrate('storage', storageDbEnv, storageDatabase);
