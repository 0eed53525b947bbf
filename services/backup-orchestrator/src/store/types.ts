import type { PageCursor } from '@coffer/common';
import type { AgentRegistration as ContractRegistration, GfsCounts, RetentionMode } from '@coffer/contracts';

// The records the domain works with and the data-access methods it calls. Mongoose lives only in
// store/*.ts; unit tests hand the domain the in-memory stores of store/fake.ts instead.
import type {
  BackupSummary,
  RestoreConfirmation,
  VerificationChecked,
  VerificationDifference,
  VerifyMode,
} from '@coffer/contracts';

export type JobStatus = 'pending' | 'in-progress' | 'completed' | 'failed';
/** 'deleting' is internal: a deletion claimed the backup; lists never show it. */
export type BackupStatus = JobStatus | 'deleting';
export type BackupType = 'manual' | 'auto';

export interface AgentRecord {
  id: string;
  userId: string;
  instanceId: string;
  name: string;
  hostname: string;
  configId: string;
  platform: string;
  version: string;
  databases: string[];
  connected: boolean;
  lastSeen: Date;
  disconnectedAt: Date | null;
  /** Why it is offline when the service knows: its owner replaced the API key it connected with. */
  offlineReason: OfflineReason | null;
  retired: boolean;
  createdAt: Date;
  /** Fingerprint of its master key as it reported it ('' or absent: older agents). */
  keyFingerprint?: string;
}

export type OfflineReason = 'api-key-replaced';

export interface DatabaseRecord {
  id: string;
  userId: string;
  name: string;
  enabled: boolean;
  createdAt: Date;
  lastScheduledSlot: string | null;
  /** Verified backups (absent on older records: off). */
  verify?: VerifyMode;
  /**
   * When the scheduler looks at it next (jobs/scheduler.ts) and the minute that is filed under
   * (domain/due-bucket.ts); null: parked until an agent reports it again. Absent on records from
   * before it existed: the scheduler's catch-up files them.
   */
  dueAt?: Date | null;
  dueBucket?: number | null;
}

interface JobRecord {
  id: string;
  userId: string;
  databaseName: string;
  agentId: string;
  createdAt: Date;
  commandId: string;
  commandSentAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  error: string | null;
  absentSince: Date | null;
  /** The outcome's event could not be published when the job ended (see model.ts). */
  outcomePending?: boolean;
}

export interface BackupRecord extends JobRecord {
  status: BackupStatus;
  type: BackupType;
  size: number;
  keyFingerprint: string | null;
  scheduleSlot: string;
  deletingSince: Date | null;
  deleteReason: BackupType | null;
  /** Made under the retention lock: not deleted before this date (absent on older records). */
  lockedUntil?: Date | null;
  /**
   * The plan's storage limit in bytes when the job was created (0: none): the upload's grant, so
   * the plan is read once per backup (absent on older records, whose upload reads the plan).
   */
  storageLimit?: number | null;
  /** Why the retention sweep claimed it (the audit entry's rule), kept so a taken-over claim still says. */
  deleteRule?: string | null;
  /**
   * The collections it holds, as an earlier agent reported them once stored; agents now send
   * only the summary, which names them too (read both through contentsOf, domain/restores.ts).
   */
  collections?: CollectionCount[] | null;
  /** What the dump held, as the agent reported it before the upload ended (verified backups). */
  summary?: BackupSummary | null;
}

/** A verification of a backup (domain/verification.ts): a job of its own kind. */
export interface VerificationRecord extends JobRecord {
  status: JobStatus;
  backupId: string;
  /** What it checked (the backup's summary, counted) once the comparison ran. */
  checked: VerificationChecked | null;
  /** The first difference found, when the comparison found one. */
  difference: VerificationDifference | null;
}

export type NewVerification = Omit<
  VerificationRecord,
  'startedAt' | 'completedAt' | 'error' | 'absentSince' | 'checked' | 'difference'
>;

export interface VerificationStore extends JobStore<VerificationRecord> {
  insert(rec: NewVerification): Promise<VerificationRecord>;
  /** The newest verification of each of these backups. */
  latestOf(backupIds: string[]): Promise<Map<string, VerificationRecord>>;
  /** The newest verification of the database that was started (any outcome), or null. */
  latestForDatabase(userId: string, databaseName: string): Promise<VerificationRecord | null>;
  /** Pending or in-progress verifications of the user's database. */
  activeForDatabase(userId: string, databaseName: string): Promise<VerificationRecord[]>;
  /** Backups of the user with a verification that completed (verified). */
  verifiedBackupIds(userId: string): Promise<Set<string>>;
  removeByUser(userId: string): Promise<void>;
}

export interface CollectionCount {
  name: string;
  documents: number;
}

export interface RestoreRecord extends JobRecord {
  status: JobStatus;
  backupId: string;
  /** When the restored backup was taken; null on restores recorded before it was kept. */
  backupTimestamp?: Date | null;
  /** What the user confirmed for this restore; the command carries it to the agent. */
  confirm?: RestoreConfirmation[];
  /**
   * Restore anywhere: the database the backup was taken of (absent on older records and equal to
   * databaseName for a restore into it), the agent that made the backup, and the agents' names
   * when it was requested, so the history names both sides after an agent is removed.
   */
  sourceDatabaseName?: string;
  sourceAgentId?: string;
  sourceAgentName?: string;
  agentName?: string;
  /** Restore only these collections (absent: the whole backup). */
  collections?: string[];
  /** Fingerprint of the key the backup was made with; the agent refuses if its key differs. */
  keyFingerprint?: string | null;
  documentsRestored: number;
  documentsFailed: number;
}

export interface SettingsRecord {
  frequency: number;
  /** Hours: the spec's "keep N days"; under GFS, how long failed backups stay and the lock's dates. */
  retention: number;
  retentionMode: RetentionMode;
  /** The saved GFS counts; null until the user saved some. */
  gfs: GfsCounts | null;
}

/** The account's retention lock as saved: on, and when a requested turn-off takes effect (or null). */
export interface RetentionLockRecord {
  enabled: boolean;
  offAt: Date | null;
}

/** Which job a conditional update may touch: the id, optionally its owner and agent, and the states it may be in. */
export interface JobFilter<S extends string> {
  id: string;
  userId?: string;
  agentId?: string;
  commandId?: string;
  status: readonly S[];
}

/** The part of a job store the shared job logic (delivery, heartbeats, watchdog) uses. */
export interface JobStore<R extends { status: string }> {
  get(id: string): Promise<R | null>;
  /** One conditional single-document update; null when the job is not (any longer) in one of `status`. */
  transition(filter: JobFilter<R['status']>, set: Partial<R>): Promise<R | null>;
  /** Pending jobs whose command was sent before `before`. */
  unconfirmed(before: Date): Promise<R[]>;
  /** Every in-progress job (watchdog). */
  running(): Promise<R[]>;
  /** The agent's jobs in the given states. */
  ofAgent(agentId: string, status: readonly R['status'][]): Promise<R[]>;
  /** Finished jobs whose outcome event is not known to be published (`outcomePending`). */
  outcomeUnpublished(): Promise<R[]>;
}

export type NewBackup = Omit<BackupRecord, 'startedAt' | 'completedAt' | 'error' | 'absentSince'> & {
  deletingSince?: null;
};

export interface BackupStore extends JobStore<BackupRecord> {
  /** Inserts; rejects with a duplicate-key error when the (user, database, scheduleSlot) exists. */
  insert(rec: NewBackup): Promise<BackupRecord>;
  remove(id: string): Promise<boolean>;
  /** Newest first, without backups being deleted; older than `before` when given. */
  list(userId: string, limit: number, before?: PageCursor): Promise<BackupRecord[]>;
  /** Backups of the database that were not failed (nor being deleted) created at or after `since`, oldest first. */
  startedSince(userId: string, databaseName: string, since: Date): Promise<BackupRecord[]>;
  /** The newest backup of the database that did not fail (nor is being deleted). */
  latestStarted(userId: string, databaseName: string): Promise<BackupRecord | null>;
  /** The newest completed backup of the database (the overdue gauge's clock). */
  latestCompleted(userId: string, databaseName: string): Promise<BackupRecord | null>;
  /** Users owning completed or failed backups created before `before`. */
  usersWithFinishedBefore(before: Date): Promise<string[]>;
  /**
   * Claims the oldest completed or failed backup of the user created before `before` for deletion
   * (status → deleting) and returns it as it was before the claim. A backup whose `lockedUntil`
   * is after `now` is never claimed.
   */
  claimExpired(
    userId: string,
    before: Date,
    now: Date,
    skip: string[],
    rule?: string,
  ): Promise<BackupRecord | null>;
  /**
   * Claims one completed or failed backup of the user for deletion by a retention rule (status →
   * deleting, with the rule), unless the retention lock holds it; returns it as it was, else null.
   */
  claimForRetention(userId: string, backupId: string, now: Date, rule: string): Promise<BackupRecord | null>;
  /** Takes over a deletion whose claim is older than `staleBefore` (its worker died). */
  reclaimStaleDeletion(staleBefore: Date, now: Date): Promise<BackupRecord | null>;
  ofUser(userId: string): Promise<BackupRecord[]>;
  /** Records what a backup of this agent holds, once (a repeated report changes nothing); false when not its backup. */
  setCollections(backupId: string, agentId: string, collections: CollectionCount[]): Promise<boolean>;
  stats(): Promise<{ totalCount: number; totalSize: number }>;
}

export type NewRestore = Omit<RestoreRecord, 'startedAt' | 'completedAt' | 'error' | 'absentSince'>;

export interface RestoreStore extends JobStore<RestoreRecord> {
  insert(rec: NewRestore): Promise<RestoreRecord>;
  /** Newest first; older than `before` when given. */
  list(userId: string, limit: number, before?: PageCursor): Promise<RestoreRecord[]>;
  /** Pending or in-progress restores reading this backup. */
  activeForBackup(backupId: string): Promise<RestoreRecord[]>;
  /** Pending or in-progress restores into this database. */
  activeForDatabase(userId: string, databaseName: string): Promise<RestoreRecord[]>;
  removeByUser(userId: string): Promise<void>;
}

/** The handshake's registration (contracts) for one user. */
export type AgentRegistration = ContractRegistration & { userId: string };

export interface AgentStore {
  /**
   * Upserts by (userId, instanceId): connected, lastSeen = now, not retired. `isNew` is true when the
   * instance was unknown or had been retired (it reappears in the lists). `known` is the instance's
   * record as the caller just read it (`findInstance`), if any: a store may update it by id instead
   * of looking the instance up again.
   */
  register(
    reg: AgentRegistration,
    now: Date,
    known?: AgentRecord | null,
  ): Promise<{ agent: AgentRecord; isNew: boolean }>;
  get(agentId: string): Promise<AgentRecord | null>;
  /** The record of one installation of the agent (retired or not), if it ever registered. */
  findInstance(userId: string, instanceId: string): Promise<AgentRecord | null>;
  /** The user's agents that are not retired, oldest first. */
  list(userId: string): Promise<AgentRecord[]>;
  /** lastSeen = now, connected; also the database list when given. Null for an unknown or retired agent. */
  heartbeat(userId: string, agentId: string, now: Date, databases?: string[]): Promise<AgentRecord | null>;
  /** connected → false; the record as it was, or null when it was not connected, retired or unknown. */
  disconnect(userId: string, agentId: string, now: Date, reason?: OfflineReason): Promise<AgentRecord | null>;
  retire(userId: string, agentId: string): Promise<AgentRecord | null>;
  /** Deletes the agent (of that user when given); false when there was none. */
  remove(agentId: string, userId?: string): Promise<boolean>;
  removeByUser(userId: string): Promise<void>;
}

export interface DatabaseStore {
  /** Adds the names the user does not have yet (enabled, created now). */
  ensure(userId: string, names: string[], now: Date): Promise<void>;
  /** The user's databases, oldest first (ties by id): the order that decides which are active. */
  list(userId: string): Promise<DatabaseRecord[]>;
  get(userId: string, databaseId: string): Promise<DatabaseRecord | null>;
  byName(userId: string, name: string): Promise<DatabaseRecord | null>;
  setEnabled(userId: string, databaseId: string, enabled: boolean): Promise<boolean>;
  /** Verified backups for the database; false when it is not the user's. */
  setVerify(userId: string, databaseId: string, verify: VerifyMode): Promise<boolean>;
  /** Every enabled database of every user (the overdue gauge). */
  enabled(): Promise<DatabaseRecord[]>;
  /** The slot the scheduler handled, and when the database is due next. */
  markScheduled(userId: string, name: string, slotKey: string, nextDueAt: Date): Promise<void>;
  /** Databases filed under `bucket` (enabled or not), by id after `afterId`. */
  dueIn(bucket: number, afterId: string | null, limit: number): Promise<DatabaseRecord[]>;
  /** Files one database under its next due time; null parks it until something wakes it. */
  setDue(userId: string, name: string, at: Date | null): Promise<void>;
  /** Every database of the user due at `at`: its schedule, a toggle or the plan changed. */
  dueAllOf(userId: string, at: Date): Promise<void>;
  /** The user's parked databases due at `at` (an agent registered); the others keep their time. */
  wakeParked(userId: string, at: Date): Promise<void>;
  /** Files the databases never filed, and those overdue in an earlier bucket, under `now`. */
  catchUpDue(now: Date): Promise<void>;
  removeByUser(userId: string): Promise<void>;
}

export interface SettingsStore {
  get(userId: string): Promise<SettingsRecord | null>;
  all(): Promise<Map<string, SettingsRecord>>;
  /** Writes the given fields (the rest take `defaults` on insert); returns the values before and after. */
  save(
    userId: string,
    patch: Partial<SettingsRecord>,
    defaults: SettingsRecord,
  ): Promise<{ before: SettingsRecord | null; after: SettingsRecord }>;
  remove(userId: string): Promise<void>;
  lock(userId: string): Promise<RetentionLockRecord | null>;
  /**
   * Writes the lock when it is still as `expected` (null: whatever it is); false when it changed
   * meanwhile. A user without saved settings gets the defaults with it.
   */
  saveLock(
    userId: string,
    next: RetentionLockRecord,
    expected: RetentionLockRecord | null,
    defaults: SettingsRecord,
  ): Promise<boolean>;
  /** Users whose requested turn-off is due at `now`, with the date it was due. */
  lockTurnOffsDue(now: Date): Promise<Array<{ userId: string; offAt: Date }>>;
  /** Users whose retention mode is GFS (the sweep visits them whatever their backups' age). */
  gfsUsers(): Promise<string[]>;
}

/** An account's next retention pass (jobs/retention.ts), filed like a database's schedule. */
export interface RetentionDueRecord {
  userId: string;
  /** Null: parked, nothing of the account can expire until a backup finishes or its policy changes. */
  dueAt: Date | null;
  dueBucket: number | null;
}

export interface RetentionDueStore {
  /** Files the account's next pass (null parks it). */
  mark(userId: string, at: Date | null): Promise<void>;
  /** Files these accounts at `at` unless they are filed already (migration; idempotent). */
  markMissing(userIds: string[], at: Date): Promise<void>;
  /** Accounts filed under `bucket`, by user id after `afterUserId`. */
  dueIn(bucket: number, afterUserId: string | null, limit: number): Promise<RetentionDueRecord[]>;
  /** Files the accounts overdue in an earlier bucket under `now`. */
  catchUpDue(now: Date): Promise<void>;
  remove(userId: string): Promise<void>;
  /** Whether the accounts with backups from before passes were filed have been filed (once). */
  migrated(): Promise<boolean>;
  setMigrated(): Promise<void>;
}

export interface LeaseStore {
  /**
   * Takes the lease `key` for `holder` until `until`: true when it was free or had expired by `now`
   * (its holder died or gave up), false while someone else holds it.
   */
  acquire(key: string, holder: string, now: Date, until: Date): Promise<boolean>;
  /** Gives the lease back, if `holder` still has it. */
  release(key: string, holder: string): Promise<void>;
}

export interface Stores {
  leases: LeaseStore;
  agents: AgentStore;
  databases: DatabaseStore;
  backups: BackupStore;
  restores: RestoreStore;
  verifications: VerificationStore;
  settings: SettingsStore;
  retentionDue: RetentionDueStore;
}
