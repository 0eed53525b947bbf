import { runService } from '@coffer/common';
import { loadAuthConfig } from './config.js';
import { startAuth } from './build.js';

void runService('auth', loadAuthConfig(), startAuth);
