// The audit trail's vocabulary, shared by the audit service (writer) and the gateway (filter).
/** Every action the audit log knows (product spec §3, "Audit log entry"). */
export const AUDIT_ACTIONS = [
  'BACKUP_CREATED',
  'BACKUP_COMPLETED',
  'BACKUP_FAILED',
  'BACKUP_DELETED_AUTO',
  'BACKUP_DELETED_MANUAL',
  'RESTORE_REQUESTED',
  'RESTORE_INITIATED',
  'RESTORE_COMPLETED',
  'RESTORE_FAILED',
  'SETTINGS_UPDATED',
  'NOTIFICATIONS_UPDATED',
  'RETENTION_UPDATED',
  'FREQUENCY_UPDATED',
  'PLAN_CHANGED',
  'API_KEY_REGENERATED',
  'PASSWORD_CHANGED',
  'EMAIL_CHANGED',
  'AGENT_REGISTERED',
  'AGENT_DISCONNECTED',
  'AGENT_UPDATED',
  'AGENT_UPDATE_FAILED',
  'STORAGE_LIMIT_EXCEEDED',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
