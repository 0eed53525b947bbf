import type { schedule } from '@coffer/proto';

// The records auth's domain works with and the data-access methods it calls. Mongoose lives only
// in store/*.ts; unit tests hand the domain the in-memory stores of store/fake.ts instead.

/** Ids are ObjectIds written as 24 hex characters; anything else names no record. */
export const isId = (id: string) => /^[0-9a-f]{24}$/i.test(id);

export type Role = 'user' | 'admin';
export type AccountStatus = 'active' | 'inactive';

export interface PlanRecord {
  id: string;
  /** Stable catalogue key, e.g. 'free'. */
  key: string;
  name: string;
  price: number;
  popular: boolean;
  dbLimit: number;
  /** Hours. */
  retentionLimit: number;
  /** Bytes. */
  storageLimit: number;
  /** Hours between backups. */
  frequencyLimit: number;
  /** The most GFS retention may keep per period (hourly ... yearly). */
  gfsLimits: schedule.GfsCounts;
  features: string[];
  order: number;
}
export type NewPlan = Omit<PlanRecord, 'id'>;

export interface UserRecord {
  id: string;
  /** Normalised: trimmed, lower case. */
  email: string;
  name: string;
  passwordHash: string;
  role: Role;
  status: AccountStatus;
  /** The plan's id. */
  plan: string;
  /** HMAC of the API key, for lookup. */
  apiKeyHash: string;
  /** AES-GCM sealed copy of the API key, shown to its owner only. */
  apiKeySealed: string;
  isBanned: boolean;
  banReason: string | null;
  bannedAt: Date | null;
  /** Tokens carrying an older version are refused by the gateway. */
  sessionVersion: number;
  createdAt: Date;
}
export type NewUser = Pick<
  UserRecord,
  'email' | 'name' | 'passwordHash' | 'role' | 'plan' | 'apiKeyHash' | 'apiKeySealed'
>;
export type UserPatch = Partial<
  Pick<
    UserRecord,
    | 'email'
    | 'name'
    | 'role'
    | 'status'
    | 'apiKeyHash'
    | 'apiKeySealed'
    | 'isBanned'
    | 'banReason'
    | 'bannedAt'
  >
>;

export interface ResetTokenRecord {
  id: string;
  userId: string;
  /** SHA-256 of the token: a leaked database cannot be used to reset passwords. */
  tokenHash: string;
  expiresAt: Date;
  usedAt: Date | null;
}

export interface PlanStore {
  /**
   * Inserts the plan unless one with its key exists; an existing plan keeps its id and values,
   * except that one saved before GFS retention gets the catalogue's GFS limits.
   */
  ensure(plan: NewPlan): Promise<void>;
  /** By `order`, then price. */
  list(): Promise<PlanRecord[]>;
  /** Null for an unknown or malformed id. */
  get(id: string): Promise<PlanRecord | null>;
  byKey(key: string): Promise<PlanRecord | null>;
}

export interface UserStore {
  /** Rejects with a duplicate-key error when the e-mail (or API key hash) is taken. */
  insert(user: NewUser): Promise<UserRecord>;
  /** Null for an unknown or malformed id. */
  get(id: string): Promise<UserRecord | null>;
  byEmail(email: string): Promise<UserRecord | null>;
  byApiKeyHash(apiKeyHash: string): Promise<UserRecord | null>;
  /** Newest first. */
  list(): Promise<UserRecord[]>;
  /** One write; the user after it, or null when there is none. Duplicate-key error on an e-mail clash. */
  update(id: string, patch: UserPatch): Promise<UserRecord | null>;
  /** Points the user at the plan; the plan id before, or null when there is no such user. */
  setPlan(id: string, planId: string): Promise<string | null>;
  /**
   * Replaces the password hash; with `endSessions`, raises the session version in the same write so
   * every token issued before stops working. False when there is no such user.
   */
  setPassword(id: string, passwordHash: string, opts: { endSessions: boolean }): Promise<boolean>;
  remove(id: string): Promise<boolean>;
}

export interface ResetTokenStore {
  insert(token: Omit<ResetTokenRecord, 'id' | 'usedAt'>): Promise<void>;
  /** The token with this hash if it is unused and expires after `now`. */
  findValid(tokenHash: string, now: Date): Promise<ResetTokenRecord | null>;
  /** Marks a valid token used, atomically: of two concurrent claims one gets it, the other null. */
  claim(tokenHash: string, now: Date): Promise<ResetTokenRecord | null>;
  /** Removes tokens that expired before `before` (FerretDB has no TTL indexes). */
  removeExpired(before: Date): Promise<void>;
  /** Removes every token of the user (a reset went through: the other links must stop working). */
  removeForUser(userId: string): Promise<void>;
}

/** A session signed out before its token expired: its tokens are refused until `expiresAt`. */
export interface EndedSessionRecord {
  userId: string;
  /** The token's `sid` claim. */
  sessionId: string;
  /** The token's expiry: after it the token is refused anyway and the record can go. */
  expiresAt: Date;
}

export interface EndedSessionStore {
  /** Records the session as ended; recording it again is harmless. */
  add(record: EndedSessionRecord): Promise<void>;
  /** The ids of the user's ended sessions whose tokens have not expired by `now`. */
  activeFor(userId: string, now: Date): Promise<string[]>;
  /** Removes records that expired before `before` (FerretDB has no TTL indexes). */
  removeExpired(before: Date): Promise<void>;
}

/** A user's paid subscription as the payment provider last reported it (nothing of a card). */
export interface SubscriptionRecord {
  userId: string;
  customerId: string;
  subscriptionId: string;
  /** The plan paid for in the current period. */
  planId: string;
  /** The provider's status: active, past_due, unpaid, canceled, ... */
  status: string;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd?: Date;
  /** A cheaper plan (or Free) that takes over at currentPeriodEnd. */
  pendingPlanId?: string;
}

export interface BillingStore {
  subscriptionOf(userId: string): Promise<SubscriptionRecord | null>;
  bySubscriptionId(subscriptionId: string): Promise<SubscriptionRecord | null>;
  /** Upserts the user's one subscription record. */
  saveSubscription(record: SubscriptionRecord): Promise<void>;
  /** Removes it only while it is still that subscription (a newer one stays). */
  removeSubscription(userId: string, subscriptionId: string): Promise<void>;
  /** Every subscription record: one per paying customer (the deleted-account sweep reads them). */
  allSubscriptions(): Promise<SubscriptionRecord[]>;
  isProcessed(eventId: string): Promise<boolean>;
  /** Records a provider event as handled; recording it twice is harmless. */
  markProcessed(eventId: string, type: string): Promise<void>;
}

export interface AuthStores {
  plans: PlanStore;
  users: UserStore;
  resetTokens: ResetTokenStore;
  billing: BillingStore;
  endedSessions: EndedSessionStore;
}
