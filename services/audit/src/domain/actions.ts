import { formatBytes, formatFrequency, formatRetention, VERIFY_MODE_LABELS } from '@coffer/contracts';
import {
  AUDIT_ACTIONS,
  type AgentEvent,
  type ArticleEvent,
  type AuditAction,
  type BackupEvent,
  type EventMap,
  type EventSubject,
  type RestoreEvent,
} from '@coffer/common';

export { AUDIT_ACTIONS, type AuditAction };

const KNOWN = new Set<string>(AUDIT_ACTIONS);
export const isAuditAction = (s: string): s is AuditAction => KNOWN.has(s);

export type AuditEntity =
  'User' | 'Backup' | 'Restore' | 'Agent' | 'Database' | 'Settings' | 'Storage' | 'Article';

/**
 * What an entry shows besides its action. Never a secret: no key, token, link or connection
 * string is ever in an event audit reads, and nothing here is copied from one without a field name.
 */
export interface AuditDetails {
  /** The agent's name (agent entries). */
  name?: string;
  hostname?: string;
  type?: 'manual' | 'auto';
  databaseName?: string;
  error?: string;
  /** A short human summary ('daily → hourly', 'Pro', 'backup success on, ...'). */
  value?: string;
  /** Bytes of the backup. */
  size?: number;
  /** How long the backup or restore ran. */
  durationMs?: number;
  /** When the backup (restored, deleted) was taken, ISO. */
  backupTimestamp?: string;
  documentsRestored?: number;
  documentsFailed?: number;
  /** The retention rule that chose an automatic deletion ('GFS retention (keep ...): ...'). */
  rule?: string;
}

/**
 * Who the log shows as having acted (product §4 "Audit actor label"): agent actions show the agent's
 * name or hostname; automatic backup work, *_AUTO and STORAGE_* actions are the 'System'; manual
 * backup actions and everything else the 'User'.
 */
export function actorLabel(action: AuditAction, details: AuditDetails): string {
  if (USER_AGENT_ACTIONS.has(action)) return 'User';
  if (action.startsWith('AGENT_')) return details.name || details.hostname || 'Agent';
  if (action.startsWith('STORAGE_') || action.endsWith('_AUTO')) return 'System';
  // The delay of a requested turn-off ran out: nobody acted at that moment.
  if (action === 'RETENTION_LOCK_DISABLED') return 'System';
  if (action.startsWith('BACKUP_') && details.type === 'auto') return 'System';
  return 'User';
}

/** Agent actions the user takes (commands, removal): the actor is the user, not the agent. */
const USER_AGENT_ACTIONS = new Set<AuditAction>([
  'AGENT_RESTART_REQUESTED',
  'AGENT_UPDATE_REQUESTED',
  'AGENT_RESET_REQUESTED',
  'AGENT_REMOVED',
]);

/** How one event becomes one audit entry. */
export interface ActionRule<S extends EventSubject> {
  action: AuditAction;
  entity: AuditEntity;
  /** Owner of the entry; defaults to the event's userId. */
  userId?: (data: EventMap[S]) => string;
  /** The object acted on (user, backup, agent... id); defaults to the owner for 'User' entries. */
  entityId?: (data: EventMap[S]) => string | undefined;
  details?: (data: EventMap[S]) => AuditDetails;
  /** Overrides the label from actorLabel() when an event knows better. */
  actor?: (data: EventMap[S], details: AuditDetails) => string;
  /** For events that produce several actions: write this one only when it holds. */
  when?: (data: EventMap[S]) => boolean;
}

// Shared parts of the rows below: which object an entry is about and what it shows.
const backupDetails = (d: BackupEvent): AuditDetails => ({ databaseName: d.databaseName, type: d.type });
const backupOf = { entityId: (d: BackupEvent) => d.backupId, details: backupDetails };
const restoreDetails = (d: RestoreEvent): AuditDetails => ({
  databaseName: d.databaseName,
  backupTimestamp: d.backupTimestamp,
  value: restoreRoute(d),
});

/**
 * Source and target of a restore that went elsewhere or restored some collections (restore
 * anywhere): "From 'shop' on web-1 into 'shop-copy' on dr-1 (collections: customers)". Undefined
 * for the spec's restore, whose database is both (and from publishers older than it).
 */
export function restoreRoute(d: RestoreEvent): string | undefined {
  if (!d.sourceDatabaseName) return undefined;
  const inPlace =
    d.sourceDatabaseName === d.databaseName &&
    (d.sourceAgentId ?? d.agentId) === d.agentId &&
    !d.collections?.length;
  if (inPlace) return undefined;
  const on = (agent: string | undefined) => (agent ? ` on ${agent}` : '');
  const chosen = d.collections?.length ? ` (collections: ${d.collections.join(', ')})` : '';
  return `From '${d.sourceDatabaseName}'${on(d.sourceAgentName)} into '${d.databaseName}'${on(d.agentName)}${chosen}`;
}
const restoreOf = { entityId: (d: RestoreEvent) => d.restoreId, details: restoreDetails };
const deletedDetails = (d: EventMap['backup.backup.deleted']): AuditDetails => ({
  ...backupDetails(d),
  size: d.size || undefined,
  backupTimestamp: d.backupTimestamp,
  rule: d.rule,
});
const AGENT_ACTIONS = {
  restart: 'AGENT_RESTART_REQUESTED',
  update: 'AGENT_UPDATE_REQUESTED',
  reset: 'AGENT_RESET_REQUESTED',
} as const satisfies Record<EventMap['agent.agent.action_requested']['action'], AuditAction>;
const agentOf = {
  entityId: (d: AgentEvent) => d.agentId,
  details: (d: AgentEvent): AuditDetails => ({ name: d.name, hostname: d.hostname }),
};
// Settings entries are about the owner's settings, so they carry the owner's id.
const settingsOf = { entityId: (d: { userId: string }) => d.userId };
const lockOf = { entity: 'Settings' as const, ...settingsOf };
const articleOf = {
  entityId: (d: ArticleEvent) => d.articleId,
  details: (d: ArticleEvent): AuditDetails => ({ name: d.title, value: d.slug }),
};
// An admin's action on an account: in the admin's log, about the user, with the admin as actor.
const adminOf = {
  entity: 'User' as const,
  userId: (d: { actorId: string }) => d.actorId,
  entityId: (d: { userId: string }) => d.userId,
  actor: () => 'Admin',
};
const byAdmin = (d: { userId: string; actorId?: string }) =>
  d.actorId !== undefined && d.actorId !== d.userId;
/** Who the admin acted on: the e-mail, or the id from older publishers that sent none. */
const whom = (d: { userId: string; email?: string }) => d.email || d.userId;
/** Agent error texts can be long (tool output); the log keeps their start. */
const MAX_ERROR_LENGTH = 1000;
const clip = (s: string) => (s.length > MAX_ERROR_LENGTH ? `${s.slice(0, MAX_ERROR_LENGTH - 1)}…` : s);
const changed = (c: { from: number | string; to: number | string } | undefined) =>
  c !== undefined && c.from !== c.to;

/**
 * Event subject → the entries it writes. Events absent from this table (registration, reset
 * requests, backup.backup.started, schedules, agent commands) are not audit actions; audit does
 * not even subscribe to them.
 * Adding an action for a new event is one row here (plus its stream in events.ts if new).
 */
export const ACTION_TABLE: { [S in EventSubject]?: ActionRule<S> | ActionRule<S>[] } = {
  'auth.user.password_changed': {
    action: 'PASSWORD_CHANGED',
    entity: 'User',
    details: (d) => ({
      value:
        d.via === 'reset'
          ? 'Reset with an e-mailed link'
          : d.via === 'profile'
            ? 'Changed in the profile'
            : undefined,
    }),
  },
  'auth.user.email_changed': {
    action: 'EMAIL_CHANGED',
    entity: 'User',
    details: (d) => ({ value: d.email }),
  },
  'auth.user.api_key_regenerated': {
    action: 'API_KEY_REGENERATED',
    entity: 'User',
    details: () => ({ value: 'The previous key stopped working; agents need the new one' }),
  },
  // In the user's log; when an admin changed it, also in the admin's (USER_PLAN_CHANGED).
  'auth.user.plan_changed': [
    {
      action: 'PLAN_CHANGED',
      entity: 'User',
      details: (d) => ({ value: d.planName }),
      // Product §4: a spec action that is neither an agent's, a backup's nor the system's reads 'User',
      // whoever made it; the admin's own log has USER_PLAN_CHANGED with 'Admin'.
      actor: () => 'User',
    },
    {
      action: 'USER_PLAN_CHANGED',
      ...adminOf,
      userId: (d) => d.actorId!,
      when: byAdmin,
      details: (d) => ({ value: `${whom(d)}: ${d.planName}` }),
    },
  ],
  // An admin's actions on an account land in that admin's log, about the user (entityId).
  'auth.user.role_changed': {
    action: 'USER_ROLE_CHANGED',
    ...adminOf,
    details: (d) => ({ value: `${d.email}: ${d.role}` }),
  },
  'auth.user.status_changed': {
    action: 'USER_STATUS_CHANGED',
    ...adminOf,
    details: (d) => ({ value: `${d.email}: ${d.status}` }),
  },
  'auth.user.ban_changed': [
    {
      action: 'USER_BANNED',
      ...adminOf,
      when: (d) => d.isBanned,
      details: (d) => ({ value: d.banReason ? `${whom(d)}: ${d.banReason}` : whom(d) }),
    },
    {
      action: 'USER_UNBANNED',
      ...adminOf,
      when: (d) => !d.isBanned,
      details: (d) => ({ value: whom(d) }),
    },
  ],
  // The deleted user's own log goes with the account (recorder.ts); this entry is the admin's.
  'auth.user.deleted': {
    action: 'USER_DELETED',
    ...adminOf,
    when: (d) => d.actorId !== d.userId,
    details: (d) => ({ value: whom(d) }),
  },

  'auth.user.two_factor_enabled': {
    action: 'TWO_FACTOR_ENABLED',
    entity: 'User',
    details: () => ({ value: 'Sign-in now asks for a code from an authenticator app' }),
  },
  'auth.user.two_factor_disabled': {
    action: 'TWO_FACTOR_DISABLED',
    entity: 'User',
    details: () => ({ value: 'Sign-in no longer asks for a second factor' }),
  },
  'auth.user.recovery_code_used': {
    action: 'RECOVERY_CODE_USED',
    entity: 'User',
    details: (d) => ({ value: `${d.recoveryCodesLeft} recovery codes left` }),
  },
  'auth.user.recovery_codes_regenerated': {
    action: 'RECOVERY_CODES_REGENERATED',
    entity: 'User',
    details: () => ({ value: 'The previous recovery codes stopped working' }),
  },
  'auth.security.admin_two_factor_changed': {
    action: 'ADMIN_TWO_FACTOR_POLICY_CHANGED',
    entity: 'Settings',
    actor: () => 'Admin',
    details: (d) => ({
      value: d.requireAdminTwoFactor
        ? 'Admins must use two-factor sign-in'
        : 'Two-factor sign-in is optional for admins',
    }),
  },

  // Backups: the actor follows the backup's type (manual: 'User', auto: 'System').
  'backup.backup.created': { action: 'BACKUP_CREATED', entity: 'Backup', ...backupOf },
  'backup.backup.completed': {
    action: 'BACKUP_COMPLETED',
    entity: 'Backup',
    ...backupOf,
    details: (d) => ({ ...backupDetails(d), size: d.size, durationMs: d.durationMs }),
  },
  'backup.backup.failed': {
    action: 'BACKUP_FAILED',
    entity: 'Backup',
    ...backupOf,
    details: (d) => ({ ...backupDetails(d), error: clip(d.error), durationMs: d.durationMs }),
  },
  'backup.backup.deleted': [
    {
      action: 'BACKUP_DELETED_MANUAL',
      entity: 'Backup',
      ...backupOf,
      details: deletedDetails,
      when: (d) => d.type === 'manual',
    },
    {
      action: 'BACKUP_DELETED_AUTO',
      entity: 'Backup',
      ...backupOf,
      details: deletedDetails,
      when: (d) => d.type === 'auto',
    },
  ],

  // Verified backups: automatic, so the System acted; the entry is about the backup.
  'backup.verification.completed': {
    action: 'BACKUP_VERIFIED',
    entity: 'Backup',
    entityId: (d) => d.backupId,
    actor: () => 'System',
    details: (d) => ({
      databaseName: d.databaseName,
      backupTimestamp: d.backupTimestamp,
      value: `${d.checked.collections} collections, ${d.checked.documents} documents, ${d.checked.indexes} indexes and the content digest checked`,
    }),
  },
  'backup.verification.failed': {
    action: 'BACKUP_VERIFICATION_FAILED',
    entity: 'Backup',
    entityId: (d) => d.backupId,
    actor: () => 'System',
    details: (d) => ({
      databaseName: d.databaseName,
      backupTimestamp: d.backupTimestamp,
      error: clip(d.error),
    }),
  },

  'restore.restore.requested': { action: 'RESTORE_REQUESTED', entity: 'Restore', ...restoreOf },
  'restore.restore.initiated': { action: 'RESTORE_INITIATED', entity: 'Restore', ...restoreOf },
  'restore.restore.completed': {
    action: 'RESTORE_COMPLETED',
    entity: 'Restore',
    entityId: (d) => d.restoreId,
    details: (d) => ({
      ...restoreDetails(d),
      documentsRestored: d.documentsRestored,
      documentsFailed: d.documentsFailed,
      durationMs: d.durationMs,
    }),
  },
  'restore.restore.failed': {
    action: 'RESTORE_FAILED',
    entity: 'Restore',
    entityId: (d) => d.restoreId,
    details: (d) => ({ ...restoreDetails(d), error: clip(d.error), durationMs: d.durationMs }),
  },

  // The actor of agent actions is the agent itself (its name, else its hostname).
  'agent.agent.registered': { action: 'AGENT_REGISTERED', entity: 'Agent', ...agentOf },
  'agent.agent.disconnected': { action: 'AGENT_DISCONNECTED', entity: 'Agent', ...agentOf },
  'agent.agent.updated': {
    action: 'AGENT_UPDATED',
    entity: 'Agent',
    ...agentOf,
    details: (d) => ({ ...agentOf.details(d), value: `${d.fromVersion} → ${d.toVersion}` }),
  },
  // The value is the version that keeps running.
  'agent.agent.update_failed': {
    action: 'AGENT_UPDATE_FAILED',
    entity: 'Agent',
    ...agentOf,
    details: (d) => ({ ...agentOf.details(d), value: d.fromVersion, error: clip(d.error) }),
  },

  // The value is the version that keeps running, the newest the server offers.
  'agent.agent.up_to_date': {
    action: 'AGENT_UP_TO_DATE',
    entity: 'Agent',
    ...agentOf,
    details: (d) => ({ ...agentOf.details(d), value: d.version }),
  },

  // Agent actions the user takes: the actor is 'User' (see actorLabel).
  'agent.agent.action_requested': (['restart', 'update', 'reset'] as const).map((action) => ({
    action: AGENT_ACTIONS[action],
    entity: 'Agent' as const,
    ...agentOf,
    when: (d: EventMap['agent.agent.action_requested']) => d.action === action,
  })),
  'agent.agent.removed': {
    action: 'AGENT_REMOVED',
    entity: 'Agent',
    ...agentOf,
    details: (d) => ({
      ...agentOf.details(d),
      value: d.by === 'admin' ? 'Removed by an administrator' : undefined,
    }),
    actor: (d) => (d.by === 'admin' ? 'Admin' : 'User'),
  },

  'settings.database.updated': [
    {
      action: 'DATABASE_ENABLED',
      entity: 'Database',
      entityId: (d) => d.databaseId,
      details: (d) => ({ databaseName: d.databaseName }),
      when: (d) => d.isActive,
    },
    {
      action: 'DATABASE_DISABLED',
      entity: 'Database',
      entityId: (d) => d.databaseId,
      details: (d) => ({ databaseName: d.databaseName }),
      when: (d) => !d.isActive,
    },
  ],
  'settings.verification.updated': {
    action: 'VERIFICATION_UPDATED',
    entity: 'Database',
    entityId: (d) => d.databaseId,
    details: (d) => ({
      databaseName: d.databaseName,
      value: `${VERIFY_MODE_LABELS[d.from]} → ${VERIFY_MODE_LABELS[d.to]}`,
    }),
  },
  // Addresses are the user's own and no secret; the confirmation link never reaches an event.
  'settings.notification_email.requested': {
    action: 'NOTIFICATION_EMAIL_CHANGE_REQUESTED',
    entity: 'Settings',
    ...settingsOf,
    details: (d) => ({ value: `${d.email} (waiting for confirmation)` }),
  },
  'settings.notification_email.changed': {
    action: 'NOTIFICATION_EMAIL_CHANGED',
    entity: 'Settings',
    ...settingsOf,
    details: (d) => ({
      value: `${d.previous ?? 'account email'} → ${d.email ?? 'account email'}`,
    }),
  },

  'settings.retention_lock.updated': [
    { action: 'RETENTION_LOCK_ENABLED', ...lockOf, when: (d) => d.change === 'enabled' },
    {
      action: 'RETENTION_LOCK_DISABLE_REQUESTED',
      ...lockOf,
      when: (d) => d.change === 'disable_requested',
      details: (d) => ({ value: d.effectiveAt ? `takes effect ${d.effectiveAt}` : undefined }),
    },
    { action: 'RETENTION_LOCK_DISABLE_CANCELLED', ...lockOf, when: (d) => d.change === 'disable_cancelled' },
    { action: 'RETENTION_LOCK_DISABLED', ...lockOf, when: (d) => d.change === 'disabled' },
  ],

  // One settings save: SETTINGS_UPDATED always, plus one entry per setting that really changed.
  'settings.backup.updated': [
    {
      action: 'SETTINGS_UPDATED',
      entity: 'Settings',
      ...settingsOf,
      details: (d) => ({
        value: [
          changed(d.frequency) &&
            `frequency ${formatFrequency(d.frequency!.from)} → ${formatFrequency(d.frequency!.to)}`,
          changed(d.retention) &&
            `retention ${formatRetention(d.retention!.from)} → ${formatRetention(d.retention!.to)}`,
          changed(d.retentionRule) && `retention rule ${d.retentionRule!.from} → ${d.retentionRule!.to}`,
        ]
          .filter(Boolean)
          .join(', '),
      }),
    },
    {
      action: 'FREQUENCY_UPDATED',
      entity: 'Settings',
      ...settingsOf,
      when: (d) => changed(d.frequency),
      details: (d) => ({
        value: `${formatFrequency(d.frequency!.from)} → ${formatFrequency(d.frequency!.to)}`,
      }),
    },
    {
      action: 'RETENTION_UPDATED',
      entity: 'Settings',
      ...settingsOf,
      when: (d) => changed(d.retention) || changed(d.retentionRule),
      details: (d) => ({
        value: [
          changed(d.retentionRule) && `${d.retentionRule!.from} → ${d.retentionRule!.to}`,
          changed(d.retention) &&
            `${formatRetention(d.retention!.from)} → ${formatRetention(d.retention!.to)}`,
        ]
          .filter(Boolean)
          .join(', '),
      }),
    },
  ],
  'settings.notifications.updated': {
    action: 'NOTIFICATIONS_UPDATED',
    entity: 'Settings',
    ...settingsOf,
    details: (d) => ({
      value: [
        `backup success ${d.backupSuccess ? 'on' : 'off'}`,
        `backup failure ${d.backupFailure ? 'on' : 'off'}`,
        `agent disconnection ${d.agentDisconnection ? 'on' : 'off'}`,
      ].join(', '),
    }),
  },

  'storage.limit.exceeded': {
    action: 'STORAGE_LIMIT_EXCEEDED',
    entity: 'Storage',
    entityId: (d) => d.blobId,
    details: (d) => ({ value: `${formatBytes(d.bytesUsed)} used of ${formatBytes(d.storageLimit)}` }),
  },

  // Knowledge-base changes land in the log of the admin who made them: the title, and the slug.
  'kb.article.created': { action: 'ARTICLE_CREATED', entity: 'Article', ...articleOf },
  'kb.article.updated': { action: 'ARTICLE_UPDATED', entity: 'Article', ...articleOf },
  'kb.article.deleted': { action: 'ARTICLE_DELETED', entity: 'Article', ...articleOf },
  'kb.article.published': { action: 'ARTICLE_PUBLISHED', entity: 'Article', ...articleOf },
  'kb.article.unpublished': { action: 'ARTICLE_UNPUBLISHED', entity: 'Article', ...articleOf },
};

/** The subjects audit consumes: exactly those with a row. */
export const auditedSubjects = (): EventSubject[] => Object.keys(ACTION_TABLE) as EventSubject[];

export interface PlannedEntry {
  userId: string;
  action: AuditAction;
  entity: AuditEntity;
  entityId: string | undefined;
  actor: string;
  details: AuditDetails;
}

/** The entries one event should produce (none for subjects without a row). */
export function entriesFor<S extends EventSubject>(subject: S, data: EventMap[S]): PlannedEntry[] {
  const row = ACTION_TABLE[subject] as ActionRule<S> | ActionRule<S>[] | undefined;
  if (!row) return [];
  const rules = Array.isArray(row) ? row : [row];
  return rules
    .filter((r) => !r.when || r.when(data))
    .map((r) => {
      const details = dropEmpty(r.details?.(data) ?? {});
      const userId = r.userId ? r.userId(data) : (data as { userId?: string }).userId;
      if (!userId) throw new Error(`event ${subject} carries no userId`);
      return {
        userId,
        action: r.action,
        entity: r.entity,
        entityId: r.entityId ? r.entityId(data) : r.entity === 'User' ? userId : undefined,
        actor: r.actor ? r.actor(data, details) : actorLabel(r.action, details),
        details,
      };
    });
}

function dropEmpty(d: AuditDetails): AuditDetails {
  return Object.fromEntries(
    Object.entries(d).filter(([, v]) => v !== undefined && v !== null && v !== ''),
  ) as AuditDetails;
}
