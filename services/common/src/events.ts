import type {
  BackupProgressEvent,
  CommandMessage,
  CommandKind,
  RestoreProgressEvent,
  VerificationProgressEvent,
  VerificationChecked,
  VerificationDifference,
  VerifyMode,
} from '@coffer/contracts';

/**
 * Every event Coffer speaks on NATS, in one typed map: publishers, consumers (audit, notification,
 * gateway) and tests all use these names and payloads. Domain subjects follow
 * <domain>.<entity>.<verb>, and each domain has one JetStream stream; the live subjects
 * (PROGRESS_SUBJECTS) are plain NATS.
 */
export interface EventMap {
  'auth.user.registered': { userId: string; email: string; name: string };
  /** `via`: 'profile' (current password given) or 'reset' (an e-mailed reset link); absent from older publishers. */
  'auth.user.password_changed': { userId: string; via?: 'profile' | 'reset' };
  'auth.user.email_changed': { userId: string; email: string };
  'auth.user.api_key_regenerated': { userId: string };
  /** `actorId`/`email`: the admin who changed it and the user's address (absent when the user did). */
  'auth.user.plan_changed': {
    userId: string;
    planId: string;
    planName: string;
    actorId?: string;
    email?: string;
  };
  /** `email`: the user's address, for the admin's audit entry; absent from older publishers. */
  'auth.user.ban_changed': {
    userId: string;
    isBanned: boolean;
    banReason: string | null;
    actorId: string;
    email?: string;
  };
  /** An admin changed the user's role. */
  'auth.user.role_changed': { userId: string; email: string; role: 'user' | 'admin'; actorId: string };
  /** An admin changed the user's status. */
  'auth.user.status_changed': {
    userId: string;
    email: string;
    status: 'active' | 'inactive';
    actorId: string;
  };
  /**
   * The account is gone (an admin deleted it): every service removes what it holds of the user
   * (docs/architecture.md, "Deleting an account"). `email`: of the deleted user, for the admin's
   * audit entry; absent from older publishers.
   */
  'auth.user.deleted': { userId: string; actorId: string; email?: string };
  /**
   * Someone asked for a reset link for this account. The link itself never travels on NATS (the
   * stream keeps events for days): auth hands it to notification through a gRPC call.
   */
  'auth.user.reset_requested': { userId: string };
  /** Two-factor sign-in was confirmed with a first code, or turned off (after a step-up). */
  'auth.user.two_factor_enabled': { userId: string };
  'auth.user.two_factor_disabled': { userId: string };
  /** A recovery code signed in or confirmed an action; it cannot be used again. */
  'auth.user.recovery_code_used': { userId: string; recoveryCodesLeft: number };
  'auth.user.recovery_codes_regenerated': { userId: string };
  /** An admin (`userId`) changed whether admins must use two-factor sign-in. */
  'auth.security.admin_two_factor_changed': { userId: string; requireAdminTwoFactor: boolean };
  /**
   * A paid subscription ended because its renewal could not be charged (after the payment
   * provider's retries): the user is back on `planName` (Free); notification mails them.
   */
  'auth.billing.plan_lapsed': { userId: string; previousPlanName: string; planName: string };

  'backup.backup.created': BackupEvent;
  /** The agent acknowledged the command and started dumping. */
  'backup.backup.started': BackupEvent;
  /** durationMs: from the agent's start (else the command) to completion; absent from older publishers. */
  'backup.backup.completed': BackupEvent & { size: number; durationMs?: number };
  'backup.backup.failed': BackupEvent & { error: string; durationMs?: number };
  /**
   * size: of the deleted backup (0 when it never completed); backupTimestamp: when it was taken
   * (ISO); rule: for an automatic deletion, the retention rule that chose it, in product words.
   */
  'backup.backup.deleted': BackupEvent & { size?: number; backupTimestamp?: string; rule?: string };
  /**
   * Verified backups: a verification restored the backup into a scratch database on the agent's
   * side and found it whole (completed), or found a difference or could not run (failed; `error`
   * says which, in product words). Nothing is deleted either way.
   */
  'backup.verification.completed': VerificationEvent & { checked: VerificationChecked };
  'backup.verification.failed': VerificationEvent & {
    error: string;
    difference?: VerificationDifference;
  };
  /** A scheduled backup is due; the id is built from the schedule and its time slot. */
  'backup.schedule.due': { userId: string; databaseName: string; slot: number };

  'restore.restore.requested': RestoreEvent;
  'restore.restore.initiated': RestoreEvent;
  'restore.restore.completed': RestoreEvent & {
    documentsRestored: number;
    documentsFailed: number;
    durationMs?: number;
  };
  'restore.restore.failed': RestoreEvent & { error: string; durationMs?: number };

  'agent.agent.registered': AgentEvent;
  'agent.agent.disconnected': AgentEvent & {
    /**
     * Set when the agent said it was going before its socket closed: 'restart' (it comes back by
     * itself) or 'stop' (stopped or uninstalled on its server). Not an alarm either way.
     */
    leaving?: 'restart' | 'stop';
    /** The gateway closed it because its owner replaced the API key: it cannot come back by itself. */
    reason?: 'api-key-replaced';
  };
  /** The agent installed a newer release of itself and runs it now. */
  'agent.agent.updated': AgentEvent & { fromVersion: string; toVersion: string };
  /** The agent tried to update itself and keeps running `fromVersion`. */
  'agent.agent.update_failed': AgentEvent & { fromVersion: string; error: string };
  /** The agent checked for an update and already runs the newest version the server offers. */
  'agent.agent.up_to_date': AgentEvent & { version: string };
  /** The user sent the agent a command from Settings → Agents (audited; the command itself follows). */
  'agent.agent.action_requested': AgentEvent & { action: 'restart' | 'update' | 'reset' };
  /**
   * The agent's record was removed, by its owner ('user') or an admin (`actorId`, the admin auth
   * verified from their session); its backups stay.
   */
  'agent.agent.removed': AgentEvent & { by: 'user' | 'admin'; actorId?: string };
  /** A command for one agent; whichever gateway takes it emits it to the agent's room. */
  'agent.command.requested': AgentCommand;

  'settings.backup.updated': {
    userId: string;
    frequency?: { from: number; to: number };
    retention?: { from: number; to: number };
    /** The retention rule in product words ('7 days', 'GFS: 0 hourly, 7 daily, ...'), when it changed. */
    retentionRule?: { from: string; to: string };
  };
  'settings.notifications.updated': {
    userId: string;
    backupSuccess: boolean;
    backupFailure: boolean;
    agentDisconnection: boolean;
  };

  /**
   * The account's retention lock (Settings → General): turned on (at once), a turn-off requested
   * (it takes effect at `effectiveAt`, announced by mail), that request cancelled, or the turn-off
   * now in effect.
   */
  'settings.retention_lock.updated': {
    userId: string;
    change: RetentionLockChange;
    /** ISO date the requested turn-off takes effect (disable_requested only). */
    effectiveAt?: string;
  };

  /** The user turned a database on or off for backups (Settings → Databases). */
  'settings.database.updated': {
    userId: string;
    databaseId: string;
    databaseName: string;
    isActive: boolean;
  };
  /** The user changed how a database's backups are verified (Settings → Databases → Verification). */
  'settings.verification.updated': {
    userId: string;
    databaseId: string;
    databaseName: string;
    from: VerifyMode;
    to: VerifyMode;
  };
  /**
   * A new notification address waits for confirmation (its link went only into the mail to it).
   * `current` is where notifications keep going until then.
   */
  'settings.notification_email.requested': { userId: string; email: string; current: string | null };
  /** The new address was confirmed (or the user went back to the account address, `email` null). */
  'settings.notification_email.changed': { userId: string; email: string | null; previous: string | null };

  'storage.limit.exceeded': { userId: string; blobId: string; storageLimit: number; bytesUsed: number };

  /** An admin changed the knowledge base; userId is that admin (the entry lands in their audit log). */
  'kb.article.created': ArticleEvent;
  'kb.article.updated': ArticleEvent;
  'kb.article.deleted': ArticleEvent;
  'kb.article.published': ArticleEvent;
  'kb.article.unpublished': ArticleEvent;

  /** Live progress of a backup, for the owner's browsers (plain NATS, see PROGRESS_SUBJECTS). */
  'progress.backup': BackupProgressMessage;
  /** Live progress of a restore, likewise. */
  'progress.restore': RestoreProgressMessage;
  /** Live progress of a verification (verified backups), likewise; its end too (live only). */
  'progress.verification': VerificationProgressMessage;
}

export const RETENTION_LOCK_CHANGES = [
  'enabled',
  'disable_requested',
  'disable_cancelled',
  'disabled',
] as const;
export type RetentionLockChange = (typeof RETENTION_LOCK_CHANGES)[number];

export interface BackupEvent {
  userId: string;
  backupId: string;
  databaseName: string;
  agentId: string;
  type: 'manual' | 'auto';
}

export interface VerificationEvent {
  userId: string;
  verificationId: string;
  backupId: string;
  databaseName: string;
  agentId: string;
  /** When the verified backup was taken (ISO). */
  backupTimestamp?: string;
}

export interface RestoreEvent {
  userId: string;
  restoreId: string;
  backupId: string;
  databaseName: string;
  agentId: string;
  /** When the restored backup was taken (ISO); absent when it is unknown (older publishers). */
  backupTimestamp?: string;
  /**
   * Restore anywhere (absent from older publishers): the database the backup was taken of and the
   * agent that made it, the restoring agent's name, and the collections chosen (absent: all).
   */
  sourceDatabaseName?: string;
  sourceAgentId?: string;
  sourceAgentName?: string;
  agentName?: string;
  collections?: string[];
}

export interface AgentEvent {
  userId: string;
  agentId: string;
  name: string;
  hostname: string;
}

export interface ArticleEvent {
  userId: string;
  articleId: string;
  title: string;
  slug: string;
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
export const PROGRESS_SUBJECTS = {
  backup: 'progress.backup',
  restore: 'progress.restore',
  verification: 'progress.verification',
} as const;
export type LiveSubject = (typeof PROGRESS_SUBJECTS)[keyof typeof PROGRESS_SUBJECTS];

/** The browser event (the contract of the browser edge) plus whose browsers get it. */
export type BackupProgressMessage = BackupProgressEvent & { userId: string };
export type RestoreProgressMessage = RestoreProgressEvent & { userId: string };
export type VerificationProgressMessage = VerificationProgressEvent & { userId: string };

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

const MiB = 1024 * 1024;

/**
 * One JetStream stream per domain, each bounded by age and size (the oldest events go first), so
 * a consumer that stopped cannot fill the NATS server's disk. Events are a few hundred bytes: the
 * sizes hold far more than a week of them.
 */
export const STREAMS = {
  AUTH: { subjects: ['auth.>'], maxAgeHours: 24 * 7, maxBytes: 512 * MiB },
  BACKUP: { subjects: ['backup.>'], maxAgeHours: 24 * 7, maxBytes: 1024 * MiB },
  RESTORE: { subjects: ['restore.>'], maxAgeHours: 24 * 7, maxBytes: 256 * MiB },
  AGENT: { subjects: ['agent.>'], maxAgeHours: 24 * 7, maxBytes: 512 * MiB },
  SETTINGS: { subjects: ['settings.>'], maxAgeHours: 24 * 7, maxBytes: 256 * MiB },
  STORAGE: { subjects: ['storage.>'], maxAgeHours: 24 * 7, maxBytes: 256 * MiB },
  KB: { subjects: ['kb.>'], maxAgeHours: 24 * 7, maxBytes: 64 * MiB },
} as const satisfies Record<string, { subjects: readonly string[]; maxAgeHours: number; maxBytes: number }>;

export type StreamName = keyof typeof STREAMS;
