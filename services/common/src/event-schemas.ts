import { z } from 'zod';
import {
  COMMAND_KINDS,
  RESTORE_CONFIRMATIONS,
  verificationCheckedSchema,
  verificationDifferenceSchema,
  VERIFY_MODES,
} from '@coffer/contracts';
import { RETENTION_LOCK_CHANGES, type EventMap, type EventSubject } from './events.js';

// The schema of every persisted event's payload (events.ts's EventMap). Consumers check each event
// against it before their handler runs (nats/bus.ts), so a malformed payload goes to the dead
// letters at once instead of failing the handler on every redelivery; the AsyncAPI document
// (contracts/asyncapi.json) is generated from the same schemas. `satisfies` keeps each schema in
// step with its TypeScript type. Unknown fields are allowed: a newer publisher may add some.

// As loose as the TypeScript types: the check is for events no handler could read, not for content.
const id = z.string();
const text = z.string();
const isoDate = z.string();

const backupEvent = z.object({
  userId: id,
  backupId: id,
  databaseName: text,
  agentId: id,
  type: z.enum(['manual', 'auto']),
});
const restoreEvent = z.object({
  userId: id,
  restoreId: id,
  backupId: id,
  databaseName: text,
  agentId: id,
  backupTimestamp: isoDate.optional(),
  sourceDatabaseName: text.optional(),
  sourceAgentId: id.optional(),
  sourceAgentName: text.optional(),
  agentName: text.optional(),
  collections: z.array(text).optional(),
});
const verificationEvent = z.object({
  userId: id,
  verificationId: id,
  backupId: id,
  databaseName: text,
  agentId: id,
  backupTimestamp: isoDate.optional(),
});
const agentEvent = z.object({ userId: id, agentId: id, name: text, hostname: text });
const articleEvent = z.object({ userId: id, articleId: id, title: text, slug: text });
const fromTo = <T extends z.ZodType>(v: T) => z.object({ from: v, to: v });

type Schemas = { [S in EventSubject]: z.ZodType<EventMap[S]> };

export const EVENT_SCHEMAS = {
  'auth.user.registered': z.object({ userId: id, email: text, name: text }),
  'auth.user.password_changed': z.object({ userId: id, via: z.enum(['profile', 'reset']).optional() }),
  'auth.user.email_changed': z.object({ userId: id, email: text }),
  'auth.user.api_key_regenerated': z.object({ userId: id }),
  'auth.user.plan_changed': z.object({
    userId: id,
    planId: id,
    planName: text,
    actorId: id.optional(),
    email: text.optional(),
  }),
  'auth.user.ban_changed': z.object({
    userId: id,
    isBanned: z.boolean(),
    banReason: text.nullable(),
    actorId: id,
    email: text.optional(),
  }),
  'auth.user.role_changed': z.object({
    userId: id,
    email: text,
    role: z.enum(['user', 'admin']),
    actorId: id,
  }),
  'auth.user.status_changed': z.object({
    userId: id,
    email: text,
    status: z.enum(['active', 'inactive']),
    actorId: id,
  }),
  'auth.user.deleted': z.object({ userId: id, actorId: id, email: text.optional() }),
  'auth.user.reset_requested': z.object({ userId: id }),
  'auth.user.two_factor_enabled': z.object({ userId: id }),
  'auth.user.two_factor_disabled': z.object({ userId: id }),
  'auth.user.recovery_code_used': z.object({ userId: id, recoveryCodesLeft: z.number().int().min(0) }),
  'auth.user.recovery_codes_regenerated': z.object({ userId: id }),
  'auth.security.admin_two_factor_changed': z.object({ userId: id, requireAdminTwoFactor: z.boolean() }),
  'auth.billing.plan_lapsed': z.object({ userId: id, previousPlanName: text, planName: text }),

  'backup.backup.created': backupEvent,
  'backup.backup.started': backupEvent,
  'backup.backup.completed': backupEvent.extend({
    size: z.number().min(0),
    durationMs: z.number().optional(),
  }),
  'backup.backup.failed': backupEvent.extend({ error: text, durationMs: z.number().optional() }),
  'backup.verification.completed': verificationEvent.extend({ checked: verificationCheckedSchema }),
  'backup.verification.failed': verificationEvent.extend({
    error: text,
    difference: verificationDifferenceSchema.optional(),
  }),
  'backup.backup.deleted': backupEvent.extend({
    size: z.number().min(0).optional(),
    backupTimestamp: isoDate.optional(),
    rule: text.optional(),
  }),
  'backup.schedule.due': z.object({ userId: id, databaseName: text, slot: z.number().int() }),

  'restore.restore.requested': restoreEvent,
  'restore.restore.initiated': restoreEvent,
  'restore.restore.completed': restoreEvent.extend({
    documentsRestored: z.number().int().min(0),
    documentsFailed: z.number().int().min(0),
    durationMs: z.number().optional(),
  }),
  'restore.restore.failed': restoreEvent.extend({ error: text, durationMs: z.number().optional() }),

  'agent.agent.registered': agentEvent,
  'agent.agent.disconnected': agentEvent.extend({
    leaving: z.enum(['restart', 'stop']).optional(),
    reason: z.literal('api-key-replaced').optional(),
  }),
  'agent.agent.updated': agentEvent.extend({ fromVersion: text, toVersion: text }),
  'agent.agent.update_failed': agentEvent.extend({ fromVersion: text, error: text }),
  'agent.agent.up_to_date': agentEvent.extend({ version: text }),
  'agent.agent.action_requested': agentEvent.extend({ action: z.enum(['restart', 'update', 'reset']) }),
  'agent.agent.removed': agentEvent.extend({ by: z.enum(['user', 'admin']), actorId: id.optional() }),
  'agent.command.requested': z.object({
    userId: id,
    agentId: id,
    commandId: text,
    kind: z.enum(COMMAND_KINDS),
    jobId: id.optional(),
    databaseName: text.optional(),
    backupId: id.optional(),
    confirm: z.array(z.enum(RESTORE_CONFIRMATIONS)).optional(),
  }),

  'settings.backup.updated': z.object({
    userId: id,
    frequency: fromTo(z.number()).optional(),
    retention: fromTo(z.number()).optional(),
    retentionRule: fromTo(text).optional(),
  }),
  'settings.notifications.updated': z.object({
    userId: id,
    backupSuccess: z.boolean(),
    backupFailure: z.boolean(),
    agentDisconnection: z.boolean(),
  }),
  'settings.retention_lock.updated': z.object({
    userId: id,
    change: z.enum(RETENTION_LOCK_CHANGES),
    effectiveAt: isoDate.optional(),
  }),
  'settings.database.updated': z.object({
    userId: id,
    databaseId: id,
    databaseName: text,
    isActive: z.boolean(),
  }),
  'settings.verification.updated': z.object({
    userId: id,
    databaseId: id,
    databaseName: text,
    from: z.enum(VERIFY_MODES),
    to: z.enum(VERIFY_MODES),
  }),
  'settings.notification_email.requested': z.object({ userId: id, email: text, current: text.nullable() }),
  'settings.notification_email.changed': z.object({
    userId: id,
    email: text.nullable(),
    previous: text.nullable(),
  }),

  'storage.limit.exceeded': z.object({
    userId: id,
    blobId: id,
    storageLimit: z.number(),
    bytesUsed: z.number(),
  }),

  'kb.article.created': articleEvent,
  'kb.article.updated': articleEvent,
  'kb.article.deleted': articleEvent,
  'kb.article.published': articleEvent,
  'kb.article.unpublished': articleEvent,
} satisfies Schemas;

/** The envelope every persisted event travels in (events.ts, EventEnvelope). */
export const eventEnvelopeSchema = z.object({
  id: id,
  subject: text,
  occurredAt: isoDate,
  data: z.unknown(),
});

/** Why an event cannot be handled, in a line for the log and the dead letter, or null when it can. */
export function eventProblem(subject: string, raw: unknown): string | null {
  const envelope = eventEnvelopeSchema.safeParse(raw);
  if (!envelope.success) return `not an event envelope: ${z.prettifyError(envelope.error)}`;
  if (envelope.data.subject !== subject) return `envelope names ${envelope.data.subject}, sent on ${subject}`;
  const schema = (EVENT_SCHEMAS as Partial<Record<string, z.ZodType>>)[subject];
  if (!schema) return `no schema for ${subject}`;
  const data = schema.safeParse(envelope.data.data);
  return data.success ? null : z.prettifyError(data.error).replace(/\s*\n\s*/g, '; ');
}
