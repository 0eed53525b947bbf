import { runService, tuneHeapForForwarding } from '@coffer/common';
import { loadGatewayConfig } from './config.js';
import { startGateway } from './build.js';

// It forwards every backup's bytes (docs/benchmarks.md, "A hop that only forwards").
tuneHeapForForwarding();
void runService('gateway', loadGatewayConfig(), startGateway);
