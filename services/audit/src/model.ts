import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';
import type { DataMigration, ServiceDatabase } from '@coffer/common';

const detailsSchema = new Schema(
  {
    name: String,
    hostname: String,
    type: { type: String, enum: ['manual', 'auto'] },
    databaseName: String,
    error: String,
    value: String,
    size: Number,
    durationMs: Number,
    backupTimestamp: String,
    documentsRestored: Number,
    documentsFailed: Number,
    rule: String,
  },
  { _id: false },
);

const auditEntrySchema = new Schema(
  {
    userId: { type: String, required: true },
    /** Id of the domain event that produced the entry: redelivery of that event writes nothing. */
    eventId: { type: String, required: true },
    action: { type: String, required: true },
    entity: { type: String, required: true },
    entityId: { type: String, default: null },
    actor: { type: String, required: true },
    details: { type: detailsSchema, default: () => ({}) },
    /** When the action happened (the event's occurredAt), not when the entry was written. */
    timestamp: { type: Date, required: true },
  },
  { collection: 'audit_entries', versionKey: false },
);
// One event may produce several actions (e.g. a settings change), each exactly once.
auditEntrySchema.index({ eventId: 1, action: 1 }, { unique: true });
auditEntrySchema.index({ userId: 1, timestamp: -1 });
// A filtered page: the action's entries of one user, newest first (services/common/src/paging.ts).
auditEntrySchema.index({ userId: 1, action: 1, timestamp: -1 });
// Finds the USER_DELETED entry that marks an account as gone (recorder.ts).
auditEntrySchema.index({ action: 1, entityId: 1 });

export type AuditEntryDoc = InferSchemaType<typeof auditEntrySchema> & {
  _id: import('mongoose').Types.ObjectId;
};

export interface AuditModels {
  AuditEntry: Model<InferSchemaType<typeof auditEntrySchema>>;
}

export function auditModels(conn: Connection): AuditModels {
  return { AuditEntry: conn.model('AuditEntry', auditEntrySchema) };
}

/**
 * The audit database's data migrations, oldest first (docs/operations.md, "Upgrades"). Never edit or
 * reorder a released one: add another.
 */
export const AUDIT_MIGRATIONS: readonly DataMigration[] = [
  {
    // {userId, action} served the filtered page before cursor paging; {userId, action, timestamp↓}
    // answers the same filter and its order, so the old one only costs every insert a write.
    id: '0001-drop-user-action-index',
    up: async (conn) => {
      const entries = conn.collection('audit_entries');
      const names = (
        await entries
          .listIndexes()
          .toArray()
          .catch(() => [])
      ).map((i) => String(i.name));
      if (names.includes('userId_1_action_1')) await entries.dropIndex('userId_1_action_1');
    },
  },
];

/** What the migrate step builds and applies (docs/operations.md, "Upgrades"). */
export const auditDatabase: ServiceDatabase<AuditModels> = {
  models: auditModels,
  migrations: AUDIT_MIGRATIONS,
};
