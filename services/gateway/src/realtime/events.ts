import type { ProgressInfo } from '@coffer/common';

/** Events the gateway pushes to browsers (spec §3 Live events). The web app mirrors this map. */

export interface ServerToBrowserEvents {
  backupProgress: (e: { backupId: string; status: string; progress?: ProgressInfo; error?: string }) => void;
  restoreProgress: (e: {
    restoreId: string;
    status: string;
    progress?: ProgressInfo;
    error?: string;
  }) => void;
}
