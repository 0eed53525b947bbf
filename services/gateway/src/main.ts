import { runService } from '@coffer/common';
import { loadGatewayConfig } from './config.js';
import { startGateway } from './build.js';

void runService('gateway', loadGatewayConfig(), startGateway);
