// Gateway → browser (product spec §3 "Live events", architecture §5): Socket.IO at SOCKET_IO_PATH,
// authenticated with the session token. The gateway emits to the owner's room; browsers only listen.
import type { ProgressInfo } from './progress.js';

/** The Socket.IO path of both edges (browsers on the main namespace, agents on AGENT_NAMESPACE). */
export const SOCKET_IO_PATH = '/api/socket.io';

/** The state a live event reports ('pending' is never pushed: a job is created pending). */
export type LiveJobStatus = 'in-progress' | 'completed' | 'failed';

export interface BackupProgressEvent {
  backupId: string;
  status: LiveJobStatus;
  /** Present while the agent reports progress. */
  progress?: ProgressInfo;
  /** Present when the backup failed. */
  error?: string;
}

export interface RestoreProgressEvent {
  restoreId: string;
  status: LiveJobStatus;
  progress?: ProgressInfo;
  error?: string;
}

/** A verification of a backup (verified backups): its progress, and its end. */
export interface VerificationProgressEvent {
  verificationId: string;
  status: LiveJobStatus;
  progress?: ProgressInfo;
  error?: string;
}

export interface ServerToBrowserEvents {
  backupProgress: (event: BackupProgressEvent) => void;
  restoreProgress: (event: RestoreProgressEvent) => void;
  verificationProgress: (event: VerificationProgressEvent) => void;
}

/** Browsers emit nothing. */
export type BrowserToServerEvents = Record<never, never>;

/** The handshake `auth` of a browser. */
export interface BrowserAuth {
  token: string;
}

export type BrowserEventName = keyof ServerToBrowserEvents;
export type BrowserEventPayload<E extends BrowserEventName> = Parameters<ServerToBrowserEvents[E]>[0];

export const BROWSER_EVENTS = [
  'backupProgress',
  'restoreProgress',
  'verificationProgress',
] as const satisfies readonly BrowserEventName[];
