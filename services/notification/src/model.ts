import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';
import type { ServiceDatabase } from '@coffer/common';

/** A user's notification choices; absent means every notification on, sent to the account email. */
const preferencesSchema = new Schema(
  {
    userId: { type: String, required: true, unique: true },
    backupSuccess: { type: Boolean, default: true },
    backupFailure: { type: Boolean, default: true },
    agentDisconnection: { type: Boolean, default: true },
    /** Where notifications go instead of the account email; null means the account email. */
    email: { type: String, default: null },
    lastTestSentAt: { type: Date, default: null },
    /**
     * A new notification address waiting for its owner to open the link mailed to it. Only the
     * link token's SHA-256 is kept; mail keeps going to `email` until it is confirmed.
     */
    pendingEmail: { type: String, default: null },
    pendingEmailTokenHash: { type: String, default: null },
    pendingEmailExpiresAt: { type: Date, default: null },
    pendingEmailSentAt: { type: Date, default: null },
    /** Number of the latest toggle change; the settings.notifications.updated event id carries it. */
    notificationsVersion: { type: Number, default: 0 },
    /** The latest toggle change is not known to be published yet (retried until it is). */
    notificationsPending: { type: Boolean, default: false },
  },
  { collection: 'preferences', versionKey: false, timestamps: true },
);
preferencesSchema.index({ notificationsPending: 1 });
preferencesSchema.index({ pendingEmailTokenHash: 1 });

/**
 * One record per mail caused by an event, keyed by the event id, so a redelivered event never sends
 * its mail twice. It keeps no body: reset mails carry a secret link.
 */
const outboxSchema = new Schema(
  {
    eventId: { type: String, required: true, unique: true },
    userId: { type: String, required: true, index: true },
    kind: { type: String, required: true },
    to: { type: String, required: true },
    status: { type: String, enum: ['sending', 'sent', 'failed'], required: true },
    /** A worker sending this mail holds it until then; a crashed worker's claim lapses. */
    lockedUntil: { type: Date, required: true },
    attempts: { type: Number, default: 1 },
    lastError: { type: String, default: null },
    messageId: { type: String, default: null },
    createdAt: { type: Date, required: true, index: true }, // pruned by query: FerretDB has no TTL index
    sentAt: { type: Date, default: null },
  },
  { collection: 'outbox', versionKey: false },
);

export interface NotificationModels {
  Preferences: Model<InferSchemaType<typeof preferencesSchema>>;
  Outbox: Model<InferSchemaType<typeof outboxSchema>>;
}

export function notificationModels(conn: Connection): NotificationModels {
  return {
    Preferences: conn.model('Preferences', preferencesSchema),
    Outbox: conn.model('Outbox', outboxSchema),
  };
}

/** What the migrate step builds and applies (docs/operations.md, "Upgrades"): indexes only, so far. */
export const notificationDatabase: ServiceDatabase<NotificationModels> = { models: notificationModels };
