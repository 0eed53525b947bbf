import { AUDIT_ACTIONS, type AuditAction, type EventMap, type EventSubject } from '@coffer/common';

export { AUDIT_ACTIONS, type AuditAction };

const KNOWN = new Set<string>(AUDIT_ACTIONS);
export const isAuditAction = (s: string): s is AuditAction => KNOWN.has(s);

export type AuditEntity = 'User' | 'Backup' | 'Restore' | 'Agent' | 'Settings' | 'Storage';

export interface AuditDetails {
  name?: string;
  hostname?: string;
  type?: 'manual' | 'auto';
  databaseName?: string;
  error?: string;
  value?: string;
}

/**
 * Who the log shows as having acted (spec §4 "Audit actor label"): agent actions show the agent's
 * name or hostname; automatic backup work, *_AUTO and STORAGE_* actions are the 'System'; manual
 * backup actions and everything else the 'User'.
 */
export function actorLabel(action: AuditAction, details: AuditDetails): string {
  if (action.startsWith('AGENT_')) return details.name || details.hostname || 'Agent';
  if (action.startsWith('STORAGE_') || action.endsWith('_AUTO')) return 'System';
  if (action.startsWith('BACKUP_') && details.type === 'auto') return 'System';
  return 'User';
}

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

/**
 * Event subject → the entries it writes. Events absent from this table (registration, bans,
 * deletions, reset requests) are not audit actions; audit does not even subscribe to them.
 * Adding an action for a new event is one row here (plus its stream in events.ts if new).
 */
export const ACTION_TABLE: { [S in EventSubject]?: ActionRule<S> | ActionRule<S>[] } = {
  'auth.user.password_changed': { action: 'PASSWORD_CHANGED', entity: 'User' },
  'auth.user.email_changed': {
    action: 'EMAIL_CHANGED',
    entity: 'User',
    details: (d) => ({ value: d.email }),
  },
  'auth.user.api_key_regenerated': { action: 'API_KEY_REGENERATED', entity: 'User' },
  'auth.user.plan_changed': {
    action: 'PLAN_CHANGED',
    entity: 'User',
    details: (d) => ({ value: d.planName }),
  },
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
