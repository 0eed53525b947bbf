import { z } from 'zod';
import { fields, parseInput, unaryHandlers, type Logger } from '@coffer/common';
import type { audit } from '@coffer/proto';
import { AUDIT_ACTIONS } from './domain/actions.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type AuditLogs } from './domain/logs.js';
import type { StoredAuditEntry } from './store.js';

const userId = fields.objectId('user');

// proto3 sends 0 for an unset number and '' for an unset string: those mean "use the default".
const listLogsInput = z.object({
  userId,
  page: z
    .number({ error: 'Page must be a positive whole number' })
    .int('Page must be a positive whole number')
    .min(0, 'Page must be a positive whole number')
    .transform((n) => n || 1),
  pageSize: z
    .number({ error: `Page size must be a whole number from 1 to ${MAX_PAGE_SIZE}` })
    .int(`Page size must be a whole number from 1 to ${MAX_PAGE_SIZE}`)
    .min(0, `Page size must be a whole number from 1 to ${MAX_PAGE_SIZE}`)
    .max(MAX_PAGE_SIZE, `Page size must be a whole number from 1 to ${MAX_PAGE_SIZE}`)
    .transform((n) => n || DEFAULT_PAGE_SIZE),
  action: z
    .string()
    .max(64, 'Unknown audit action')
    .optional()
    .transform((s) => s || undefined)
    .pipe(z.enum(AUDIT_ACTIONS, { error: 'Unknown audit action' }).optional()),
  before: fields.objectId('audit entry').optional(),
});

const toLogEntry = (e: StoredAuditEntry): audit.LogEntry => ({
  id: e.id,
  timestamp: e.timestamp.toISOString(),
  action: e.action,
  entity: e.entity,
  entityId: e.entityId,
  actor: e.actor,
  details: {
    name: e.details.name,
    hostname: e.details.hostname,
    type: e.details.type,
    databaseName: e.details.databaseName,
    error: e.details.error,
    value: e.details.value,
    size: e.details.size,
    durationMs: e.details.durationMs,
    backupTimestamp: e.details.backupTimestamp,
    documentsRestored: e.details.documentsRestored,
    documentsFailed: e.details.documentsFailed,
    rule: e.details.rule,
  },
});

/** gRPC edge of audit: validate, call the domain, shape the answer. */
export function auditHandlers(deps: { log: Logger; logs: AuditLogs }) {
  const { logs } = deps;
  return unaryHandlers<audit.AuditServiceServer>(deps.log, {
    async listLogs(req) {
      const input = parseInput(listLogsInput, req);
      const page = await logs.list(input);
      return {
        logs: page.logs.map(toLogEntry),
        pagination: { total: page.total, page: page.page, pages: page.pages },
      };
    },
    async listActions(req) {
      return { actions: await logs.actions(parseInput(z.object({ userId }), req).userId) };
    },
  });
}
