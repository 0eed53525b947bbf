import type { PageCursor } from '@coffer/common';
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
  /** The account's e-mail and password when the link was sent, hashed (password-reset.ts). */
  accountStamp: string;
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
  /** Newest first, (createdAt, id) descending: all, or `limit` older than `before`. */
  list(page?: { limit: number; before?: PageCursor }): Promise<UserRecord[]>;
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

export type EventClaim = 'claimed' | 'done' | 'busy';

export interface BillingStore {
  subscriptionOf(userId: string): Promise<SubscriptionRecord | null>;
  bySubscriptionId(subscriptionId: string): Promise<SubscriptionRecord | null>;
  /** Upserts the user's one subscription record. */
  saveSubscription(record: SubscriptionRecord): Promise<void>;
  /** Removes it only while it is still that subscription (a newer one stays). */
  removeSubscription(userId: string, subscriptionId: string): Promise<void>;
  /** Every subscription record: one per paying customer (the deleted-account sweep reads them). */
  allSubscriptions(): Promise<SubscriptionRecord[]>;
  /**
   * Claims a provider event for handling by inserting its id (a unique key): 'claimed' for the one
   * delivery that goes on, 'done' when it was handled before, 'busy' while another delivery handles
   * it. A claim made before `staleBefore` (its handler died) is taken over.
   */
  claimEvent(eventId: string, type: string, at: Date, staleBefore: Date): Promise<EventClaim>;
  /** The claimed event was handled: later deliveries are duplicates. */
  finishEvent(eventId: string): Promise<void>;
  /** Handling failed: drops the claim made `at`, so the provider's next delivery handles it. */
  releaseEvent(eventId: string, at: Date): Promise<void>;
}

/** A user's two-factor sign-in (TOTP): pending until a first code confirms it. */
export interface TwoFactorRecord {
  userId: string;
  /** The TOTP secret sealed with the key from TOTP_ENCRYPTION_KEY; never stored or logged in clear. */
  secretSealed: string;
  enabled: boolean;
  enabledAt: Date | null;
  /** The last time step whose code was accepted: a code of it or an earlier step is refused (no replay). */
  lastStep: number;
  /** HMACs of the unused recovery codes; a used one is removed. */
  recoveryCodes: string[];
}

export interface TwoFactorStore {
  get(userId: string): Promise<TwoFactorRecord | null>;
  /** Starts (or restarts) an enrolment with a new secret; false when two-factor sign-in is already on. */
  startEnrolment(userId: string, secretSealed: string): Promise<boolean>;
  /**
   * Turns it on, only while the enrolment with this very secret is pending (a second confirmation,
   * or one of a replaced enrolment, gets false).
   */
  enable(
    userId: string,
    secretSealed: string,
    at: { step: number; now: Date },
    recoveryCodes: string[],
  ): Promise<boolean>;
  /** Records a code's step as used, atomically: true only when it is later than every step used before. */
  useStep(userId: string, step: number): Promise<boolean>;
  /** Removes one unused recovery code, atomically: of two uses of the same code one gets true. */
  useRecoveryCode(userId: string, codeHash: string): Promise<boolean>;
  /** Replaces the recovery codes of an enabled record; false when there is none. */
  setRecoveryCodes(userId: string, codeHashes: string[]): Promise<boolean>;
  remove(userId: string): Promise<void>;
}

/** Site-wide security settings an admin sets. */
export interface SecuritySettings {
  /** Admins must sign in with a second factor; one without it is sent to enrol first. */
  requireAdminTwoFactor: boolean;
}
export interface SecuritySettingsStore {
  get(): Promise<SecuritySettings>;
  set(settings: SecuritySettings): Promise<void>;
}

export interface AuthStores {
  plans: PlanStore;
  users: UserStore;
  resetTokens: ResetTokenStore;
  billing: BillingStore;
  endedSessions: EndedSessionStore;
  twoFactor: TwoFactorStore;
  securitySettings: SecuritySettingsStore;
}
