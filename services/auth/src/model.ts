import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';
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

const resetTokenSchema = new Schema(
  {
    userId: { type: Schema.Types.ObjectId, required: true, index: true },
    tokenHash: { type: String, required: true, unique: true },
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

// The provider's event ids already handled: a redelivered webhook finds its id here.
const billingEventSchema = new Schema(
  {
    _id: { type: String, required: true },
    type: { type: String, required: true },
    at: { type: Date, required: true },
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
}

export function authModels(conn: Connection): AuthModels {
  return {
    Plan: conn.model('Plan', planSchema),
    User: conn.model('User', userSchema),
    ResetToken: conn.model('ResetToken', resetTokenSchema),
    Subscription: conn.model('Subscription', subscriptionSchema),
    BillingEvent: conn.model('BillingEvent', billingEventSchema),
    EndedSession: conn.model('EndedSession', endedSessionSchema),
  };
}
