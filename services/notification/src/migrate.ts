import { runMigrate } from '@coffer/common';
import { notificationDbEnv } from './config.js';
import { notificationDatabase } from './model.js';

// The image's one-shot migrate step (docs/operations.md, "Upgrades"): `node dist/migrate.js`.
void runMigrate('notification', notificationDbEnv, notificationDatabase);
