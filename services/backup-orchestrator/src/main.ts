import { runService } from '@coffer/common';
import { loadOrchestratorConfig } from './config.js';
import { startOrchestrator } from './build.js';

void runService('backup-orchestrator', loadOrchestratorConfig(), startOrchestrator);
