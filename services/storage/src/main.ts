import { runService } from '@coffer/common';
import { loadStorageConfig } from './config.js';
import { startStorage } from './build.js';

void runService('storage', loadStorageConfig(), startStorage);
