import type {
  BackupProgressEvent,
  CommandMessage,
  CommandKind,
  RestoreProgressEvent,
} from '@coffer/contracts';

/**
 * Every event Coffer speaks on NATS, in one typed map: publishers, consumers (audit, notification,
 * gateway) and tests all use these names and payloads. Domain subjects follow
 * <domain>.<entity>.<verb>, and each domain has one JetStream stream; the live subjects
 * (PROGRESS_SUBJECTS) are plain NATS.
 */
export interface EventMap {
  'auth.user.registered': { userId: string; email: string; name: string };
  'auth.user.password_changed': { userId: string };
  'auth.user.email_changed': { userId: string; email: string };
  'auth.user.api_key_regenerated': { userId: string };
  'auth.user.plan_changed': { userId: string; planId: string; planName: string };
  'auth.user.ban_changed': { userId: string; isBanned: boolean; banReason: string | null; actorId: string };
  'auth.user.deleted': { userId: string; actorId: string };
  /** Carries the one-hour reset link to the notification service; the stream keeps it only briefly. */
  'auth.user.reset_requested': { userId: string; email: string; name: string; resetUrl: string };

  'backup.backup.created': BackupEvent;
  /** The agent acknowledged the command and started dumping. */
  'backup.backup.started': BackupEvent;
  'backup.backup.completed': BackupEvent & { size: number };
  'backup.backup.failed': BackupEvent & { error: string };
  'backup.backup.deleted': BackupEvent;
  /** A scheduled backup is due; the id is built from the schedule and its time slot. */
  'backup.schedule.due': { userId: string; databaseName: string; slot: number };

  'restore.restore.requested': RestoreEvent;
  'restore.restore.initiated': RestoreEvent;
  'restore.restore.completed': RestoreEvent & { documentsRestored: number; documentsFailed: number };
  'restore.restore.failed': RestoreEvent & { error: string };

  'agent.agent.registered': AgentEvent;
  'agent.agent.disconnected': AgentEvent;
  /** The agent installed a newer release of itself and runs it now. */
  'agent.agent.updated': AgentEvent & { fromVersion: string; toVersion: string };
  /** The agent tried to update itself and keeps running `fromVersion`. */
  'agent.agent.update_failed': AgentEvent & { fromVersion: string; error: string };
  /** A command for one agent; whichever gateway takes it emits it to the agent's room. */
  'agent.command.requested': AgentCommand;

  'settings.backup.updated': {
    userId: string;
    frequency?: { from: number; to: number };
    retention?: { from: number; to: number };
  };
  'settings.notifications.updated': {
    userId: string;
    backupSuccess: boolean;
    backupFailure: boolean;
    agentDisconnection: boolean;
  };

  'storage.limit.exceeded': { userId: string; blobId: string; storageLimit: number; bytesUsed: number };

  /** Live progress of a backup, for the owner's browsers (plain NATS, see PROGRESS_SUBJECTS). */
  'progress.backup': BackupProgressMessage;
  /** Live progress of a restore, likewise. */
  'progress.restore': RestoreProgressMessage;
}

export interface BackupEvent {
  userId: string;
  backupId: string;
  databaseName: string;
  agentId: string;
  type: 'manual' | 'auto';
}

export interface RestoreEvent {
  userId: string;
  restoreId: string;
  backupId: string;
  databaseName: string;
  agentId: string;
}

export interface AgentEvent {
  userId: string;
  agentId: string;
  name: string;
  hostname: string;
}

export type AgentCommandKind = CommandKind;

/** A command for one agent: the message the agent receives (the contract), and whose it is. */
export interface AgentCommand extends CommandMessage {
  userId: string;
  agentId: string;
}

/**
 * Live progress on plain NATS (not persisted; high rate): the gateway that holds the agent's
 * socket publishes, gateways take each message in a queue group and emit to the owner's room.
 * Publish and subscribe with EventBus.publishLive / subscribeLive, never JetStream.
 */
export const PROGRESS_SUBJECTS = { backup: 'progress.backup', restore: 'progress.restore' } as const;
export type LiveSubject = (typeof PROGRESS_SUBJECTS)[keyof typeof PROGRESS_SUBJECTS];

/** The browser event (the contract of the browser edge) plus whose browsers get it. */
export type BackupProgressMessage = BackupProgressEvent & { userId: string };
export type RestoreProgressMessage = RestoreProgressEvent & { userId: string };

/** Subjects of the JetStream streams (persisted, consumed with `consume`). */
export type EventSubject = Exclude<keyof EventMap, LiveSubject>;

export interface EventEnvelope<S extends EventSubject = EventSubject> {
  /** Unique per event; also the JetStream message id, so a republish is dropped as a duplicate. */
  id: string;
  subject: S;
  occurredAt: string;
  data: EventMap[S];
}

/** The envelope of one of the subjects `S`, as a union a handler can narrow on `subject`. */
export type EnvelopeOf<S extends EventSubject> = { [K in S]: EventEnvelope<K> }[S];

/** One JetStream stream per domain. */
export const STREAMS = {
  AUTH: { subjects: ['auth.>'], maxAgeHours: 24 * 7 },
  BACKUP: { subjects: ['backup.>'], maxAgeHours: 24 * 7 },
  RESTORE: { subjects: ['restore.>'], maxAgeHours: 24 * 7 },
  AGENT: { subjects: ['agent.>'], maxAgeHours: 24 * 7 },
  SETTINGS: { subjects: ['settings.>'], maxAgeHours: 24 * 7 },
  STORAGE: { subjects: ['storage.>'], maxAgeHours: 24 * 7 },
} as const satisfies Record<string, { subjects: readonly string[]; maxAgeHours: number }>;

export type StreamName = keyof typeof STREAMS;
