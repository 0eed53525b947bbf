import { runMigrate } from '@coffer/common';
import { kbDbEnv } from './config.js';
import { kbDatabase } from './model.js';

// The image's one-shot migrate step (docs/operations.md, "Upgrades"): `node dist/migrate.js`.
void runMigrate('kb', kbDbEnv, kbDatabase);
