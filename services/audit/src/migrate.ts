import { runMigrate } from '@coffer/common';
import { auditDbEnv } from './config.js';
import { auditDatabase } from './model.js';

// The image's one-shot migrate step (docs/operations.md, "Upgrades"): `node dist/migrate.js`.
void runMigrate('audit', auditDbEnv, auditDatabase);
