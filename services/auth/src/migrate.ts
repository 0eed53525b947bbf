import { runMigrate } from '@coffer/common';
import { authDbEnv } from './config.js';
import { authDatabase } from './model.js';

// The image's one-shot migrate step (docs/operations.md, "Upgrades"): `node dist/migrate.js`.
void runMigrate('auth', authDbEnv, authDatabase);
