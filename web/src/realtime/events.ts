// The one typed map of realtime events pushed to browsers over Socket.IO (path /api/socket.io).
// The gateway emits these to the room `user:{id}`; keep names and payloads in step with it.

export type JobStatus = 'pending' | 'in-progress' | 'completed' | 'failed' | (string & {});

/** Progress of a dump or restore as the agent reports it. */
export interface ProgressInfo {
  /** documents done */
  current: number;
  total: number;
  percentage: number;
  collection?: string;
}

export interface BackupProgressEvent {
  backupId: string;
  status: JobStatus;
  progress?: ProgressInfo | null;
  error?: string | null;
}

export interface RestoreProgressEvent {
  restoreId: string;
  status: JobStatus;
  progress?: ProgressInfo | null;
  error?: string | null;
}

export interface ServerToClientEvents {
  backupProgress: (event: BackupProgressEvent) => void;
  restoreProgress: (event: RestoreProgressEvent) => void;
}

/** Browsers only listen; nothing is emitted from the web app. */
export type ClientToServerEvents = Record<never, never>;

export type RealtimeEventName = keyof ServerToClientEvents;
export type RealtimePayload<E extends RealtimeEventName> = Parameters<ServerToClientEvents[E]>[0];

export const REALTIME_EVENTS: readonly RealtimeEventName[] = ['backupProgress', 'restoreProgress'];
