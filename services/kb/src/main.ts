import { runService } from '@coffer/common';
import { loadKbConfig } from './config.js';
import { startKb } from './build.js';

void runService('kb', loadKbConfig(), startKb);
