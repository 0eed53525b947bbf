import { runService } from '@coffer/common';
import { loadAuditConfig } from './config.js';
import { startAudit } from './build.js';

void runService('audit', loadAuditConfig(), startAudit);
