import { runService } from '@coffer/common';
import { loadNotificationConfig } from './config.js';
import { startNotification } from './build.js';

void runService('notification', loadNotificationConfig(), startNotification);
