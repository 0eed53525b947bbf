import { runService, tuneHeapForForwarding } from '@coffer/common';
import { loadStorageConfig } from './config.js';
import { startStorage } from './build.js';

// It forwards every backup's bytes (docs/benchmarks.md, "A hop that only forwards").
tuneHeapForForwarding();
void runService('storage', loadStorageConfig(), startStorage);
