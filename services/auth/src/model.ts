import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';
import type { ServiceDatabase } from '@coffer/common';
import { gfsCountsSchema } from '@coffer/common';

const featureSchema = new Schema({ text: { type: String, required: true } }, { _id: false });

const planSchema = new Schema(
  {
    key: { type: String, required: true, unique: true }, // stable seed key, e.g. 'free'
    name: { type: String, required: true },
    price: { type: Number, required: true },
    popular: { type: Boolean, default: false },
    dbLimit: { type: Number, required: true },
    retentionLimit: { type: Number, required: true }, // hours
    storageLimit: { type: Number, required: true }, // bytes
    frequencyLimit: { type: Number, required: true }, // hours
    gfsLimits: { type: gfsCountsSchema(), default: null },
    features: { type: [featureSchema], default: [] },
    order: { type: Number, default: 0 },
  },
  { collection: 'plans' },
);

const userSchema = new Schema(
  {
    email: { type: String, required: true, unique: true }, // normalised: trimmed, lower case
    name: { type: String, default: '' },
    passwordHash: { type: String, required: true },
    role: { type: String, enum: ['user', 'admin'], default: 'user' },
    status: { type: String, enum: ['active', 'inactive'], default: 'active' },
    plan: { type: Schema.Types.ObjectId, required: true },
    apiKeyHash: { type: String, required: true, unique: true }, // HMAC of the key, for lookup
    apiKeySealed: { type: String, required: true }, // AES-GCM sealed copy, shown to its owner only
    isBanned: { type: Boolean, default: false },
    banReason: { type: String, default: null },
    bannedAt: { type: Date, default: null },
    sessionVersion: { type: Number, default: 0 },
  },
  { collection: 'users', timestamps: true },
);

// The admin's user list, a page at a time (services/common/src/paging.ts).
userSchema.index({ createdAt: -1, _id: -1 });

const resetTokenSchema = new Schema(
  {
    userId: { type: Schema.Types.ObjectId, required: true, index: true },
    tokenHash: { type: String, required: true, unique: true },
    /** Binds the link to the account's e-mail and password when it was sent (password-reset.ts). */
    accountStamp: { type: String, default: '' },
    expiresAt: { type: Date, required: true, index: true }, // expired by query: FerretDB has no TTL index
    usedAt: { type: Date, default: null },
  },
  { collection: 'reset_tokens' },
);

// Sessions signed out before their tokens expired; a record is useless once the token has expired.
const endedSessionSchema = new Schema(
  {
    userId: { type: Schema.Types.ObjectId, required: true },
    sessionId: { type: String, required: true },
    expiresAt: { type: Date, required: true, index: true }, // expired by query: FerretDB has no TTL index
  },
  { collection: 'ended_sessions' },
);
endedSessionSchema.index({ userId: 1, sessionId: 1 }, { unique: true });

// Two-factor sign-in, one record per user that started an enrolment (docs/architecture.md).
const twoFactorSchema = new Schema(
  {
    userId: { type: Schema.Types.ObjectId, required: true, unique: true },
    secretSealed: { type: String, required: true },
    enabled: { type: Boolean, default: false },
    enabledAt: { type: Date, default: null },
    lastStep: { type: Number, default: 0 },
    recoveryCodes: { type: [String], default: [] },
  },
  { collection: 'two_factor', timestamps: true },
);

// Second factors used: a TOTP step or a recovery code is claimed by inserting it here, and the
// unique index lets only one of two concurrent claims through (FerretDB does not apply a filtered
// update atomically: two `$pull`s of one code both reported a change). Steps expire by query.
const secondFactorUseSchema = new Schema(
  {
    userId: { type: Schema.Types.ObjectId, required: true },
    key: { type: String, required: true }, // 'step:<n>' or 'recovery:<hmac>'
    expiresAt: { type: Date, default: null, index: true },
  },
  { collection: 'second_factor_uses' },
);
secondFactorUseSchema.index({ userId: 1, key: 1 }, { unique: true });

// Site-wide security settings: one document, _id 'security'.
const securitySettingsSchema = new Schema(
  {
    _id: { type: String, required: true },
    requireAdminTwoFactor: { type: Boolean, default: false },
  },
  { collection: 'security_settings' },
);

const subscriptionSchema = new Schema(
  {
    userId: { type: Schema.Types.ObjectId, required: true, unique: true },
    customerId: { type: String, required: true },
    subscriptionId: { type: String, required: true, index: true },
    planId: { type: Schema.Types.ObjectId, required: true },
    status: { type: String, required: true },
    cancelAtPeriodEnd: { type: Boolean, default: false },
    currentPeriodEnd: { type: Date, default: null },
    pendingPlanId: { type: Schema.Types.ObjectId, default: null },
  },
  { collection: 'billing_subscriptions', timestamps: true },
);

// The provider's event ids, claimed before an event is acted on (the _id is the unique key), so of
// concurrent or repeated deliveries of one event exactly one acts; 'done' once it was handled.
const billingEventSchema = new Schema(
  {
    _id: { type: String, required: true },
    type: { type: String, required: true },
    /** When the claim was made (a handler that died leaves it; it is taken over once stale). */
    at: { type: Date, required: true },
    state: { type: String, enum: ['processing', 'done'] },
  },
  { collection: 'billing_events' },
);

export interface AuthModels {
  Plan: Model<InferSchemaType<typeof planSchema>>;
  User: Model<InferSchemaType<typeof userSchema>>;
  ResetToken: Model<InferSchemaType<typeof resetTokenSchema>>;
  Subscription: Model<InferSchemaType<typeof subscriptionSchema>>;
  BillingEvent: Model<InferSchemaType<typeof billingEventSchema>>;
  EndedSession: Model<InferSchemaType<typeof endedSessionSchema>>;
  TwoFactor: Model<InferSchemaType<typeof twoFactorSchema>>;
  SecondFactorUse: Model<InferSchemaType<typeof secondFactorUseSchema>>;
  SecuritySettings: Model<InferSchemaType<typeof securitySettingsSchema>>;
}

export function authModels(conn: Connection): AuthModels {
  return {
    Plan: conn.model('Plan', planSchema),
    User: conn.model('User', userSchema),
    ResetToken: conn.model('ResetToken', resetTokenSchema),
    Subscription: conn.model('Subscription', subscriptionSchema),
    BillingEvent: conn.model('BillingEvent', billingEventSchema),
    EndedSession: conn.model('EndedSession', endedSessionSchema),
    TwoFactor: conn.model('TwoFactor', twoFactorSchema),
    SecondFactorUse: conn.model('SecondFactorUse', secondFactorUseSchema),
    SecuritySettings: conn.model('SecuritySettings', securitySettingsSchema),
  };
}

/** What the migrate step builds and applies (docs/operations.md, "Upgrades"): indexes only, so far. */
export const authDatabase: ServiceDatabase<AuthModels> = { models: authModels };
