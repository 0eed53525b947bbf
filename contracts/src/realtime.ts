// Gateway → browser (product §3 "Live events", §7 "Realtime"): Socket.IO at SOCKET_IO_PATH,
// authenticated with the session token. The gateway emits to the owner's room; browsers only listen.
import type { UPDATE_STATUSES } from './agent/events.js';
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

/**
 * One of the user's agents changed what the dashboard shows of it: it connected, disconnected or
 * reported another list of databases. The browser reads the agents and databases again.
 */
export interface AgentStatusEvent {
  agentId: string;
  change: 'connected' | 'disconnected' | 'databases';
}

/** What a 'Check for Updates' came to, once the server has recorded it (issue 21, walk 10). */
export interface AgentUpdateEvent {
  agentId: string;
  status: (typeof UPDATE_STATUSES)[number];
  /** Empty when the command reached no agent (then `error` says so). */
  fromVersion: string;
  toVersion: string;
  /** Why the update failed (status 'failed'). */
  error?: string;
}

/** Why a Check for Updates came to nothing when its command did not reach the agent. */
export const updateNotDeliveredReason = (error: string) =>
  `the agent did not receive the command (${error}); check for updates again once it is online`;

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
  agentStatus: (event: AgentStatusEvent) => void;
  agentUpdate: (event: AgentUpdateEvent) => void;
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
  'agentStatus',
  'agentUpdate',
  'verificationProgress',
] as const satisfies readonly BrowserEventName[];
