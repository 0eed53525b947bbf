import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';
import { gfsCountsSchema } from '@coffer/common';

// Every collection is written one document at a time (FerretDB has no transactions). Expiry is by
// query on date fields (no TTL indexes); uniqueness by plain unique (compound) indexes only.

const agentSchema = new Schema(
  {
    userId: { type: String, required: true },
    /** Random id the agent keeps in its config; a reset makes it pick a new one. */
    instanceId: { type: String, required: true },
    name: { type: String, default: '' },
    hostname: { type: String, default: '' },
    /** Hash of the configuration file it runs from ('' from older agents): see the replacement rule. */
    configId: { type: String, default: '' },
    platform: { type: String, default: '' },
    version: { type: String, default: '' },
    /** Database names the agent last reported (names only; connection strings never leave it). */
    databases: { type: [String], default: [] },
    connected: { type: Boolean, default: true },
    lastSeen: { type: Date, required: true },
    disconnectedAt: { type: Date, default: null },
    /** Why it is offline, when known ('api-key-replaced'); cleared when it connects again. */
    offlineReason: { type: String, default: null },
    /** Reset by its owner: hidden from lists; the agent returns with a new instance id. */
    retired: { type: Boolean, default: false },
    createdAt: { type: Date, required: true },
    /** Fingerprint of its master key (never the key), as it reported it; '' from older agents. */
    keyFingerprint: { type: String, default: '' },
  },
  { collection: 'agents', versionKey: false },
);
agentSchema.index({ userId: 1, instanceId: 1 }, { unique: true });
agentSchema.index({ connected: 1 });

const databaseSchema = new Schema(
  {
    userId: { type: String, required: true },
    name: { type: String, required: true },
    /** The user's toggle. Active = enabled and among the plan's first dbLimit enabled ones. */
    enabled: { type: Boolean, default: true },
    createdAt: { type: Date, required: true },
    /** The last schedule slot the scheduler handled for this database (see jobs/scheduler.ts). */
    lastScheduledSlot: { type: String, default: null },
    /** Verified backups: 'off' | 'each' | 'weekly' (domain/verification.ts). */
    verify: { type: String, enum: ['off', 'each', 'weekly'], default: 'off' },
    /** When the scheduler looks at it next, and that minute's bucket (domain/due-bucket.ts); null: parked. */
    dueAt: { type: Date },
    dueBucket: { type: Number },
  },
  { collection: 'databases', versionKey: false },
);
databaseSchema.index({ userId: 1, name: 1 }, { unique: true });
databaseSchema.index({ enabled: 1 });
// The scheduler tick asks for one minute's bucket at a time (an equality FerretDB-PG pushes down).
databaseSchema.index({ dueBucket: 1 });

const jobFields = {
  userId: { type: String, required: true },
  databaseName: { type: String, required: true },
  agentId: { type: String, required: true },
  status: { type: String, required: true },
  createdAt: { type: Date, required: true },
  /** The command that started the job; a delivery report must name it. */
  commandId: { type: String, required: true },
  commandSentAt: { type: Date, required: true },
  startedAt: { type: Date, default: null },
  completedAt: { type: Date, default: null },
  error: { type: String, default: null },
  /** First heartbeat that no longer listed this running job (see jobs/watchdog.ts). */
  absentSince: { type: Date, default: null },
  /**
   * Set when the outcome's event could not be published as the job ended (NATS restarting); the
   * watchdog publishes it again and clears it (domain/jobs.ts, publishOutcome).
   */
  outcomePending: { type: Boolean },
};

const backupSchema = new Schema(
  {
    ...jobFields,
    type: { type: String, enum: ['manual', 'auto'], required: true },
    size: { type: Number, default: 0 },
    keyFingerprint: { type: String, default: null },
    /**
     * 'auto:<frequency>h:<slot>' for scheduled backups, 'manual:<id>' otherwise. Unique per database,
     * so a schedule slot yields at most one backup whichever replica's worker gets there first
     * (FerretDB has no partial indexes, hence the filler for manual backups).
     */
    scheduleSlot: { type: String, required: true },
    /** Set while a deletion is under way; a claim older than the lease is taken over. */
    deletingSince: { type: Date, default: null },
    deleteReason: { type: String, enum: ['manual', 'auto'], default: null },
    /**
     * Made under the owner's retention lock: createdAt + the retention in force then. Until this
     * date nobody deletes it (domain/retention-lock.ts); later settings changes do not move it.
     */
    lockedUntil: { type: Date, default: null },
    /** The plan's storage limit as read when the backup was created: the upload's grant. */
    storageLimit: { type: Number, default: null },
    deleteRule: { type: String, default: null },
    /** Collection names and document counts the agent reported (never content); null until then. */
    collections: {
      type: [new Schema({ name: String, documents: Number }, { _id: false })],
      default: undefined,
    },
    /** Per collection: documents, index definitions, digest (contracts BackupSummary); structure only. */
    summary: { type: Schema.Types.Mixed, default: null },
  },
  { collection: 'backups', versionKey: false },
);
backupSchema.index({ userId: 1, databaseName: 1, scheduleSlot: 1 }, { unique: true });
backupSchema.index({ userId: 1, createdAt: -1 });
backupSchema.index({ status: 1, createdAt: 1 });
backupSchema.index({ agentId: 1, status: 1 });
// The watchdog looks for the few jobs whose outcome is unpublished (store/jobs.ts, outcomeUnpublished).
backupSchema.index({ outcomePending: 1 });

const restoreSchema = new Schema(
  {
    ...jobFields,
    backupId: { type: String, required: true },
    backupTimestamp: { type: Date, default: null },
    /** What the user confirmed (contracts RESTORE_CONFIRMATIONS); sent with the command. */
    confirm: { type: [String], default: undefined },
    documentsRestored: { type: Number, default: 0 },
    documentsFailed: { type: Number, default: 0 },
    // Restore anywhere (store/types.ts RestoreRecord).
    sourceDatabaseName: { type: String },
    sourceAgentId: { type: String },
    sourceAgentName: { type: String },
    agentName: { type: String },
    collections: { type: [String], default: undefined },
    keyFingerprint: { type: String, default: null },
  },
  { collection: 'restores', versionKey: false },
);
restoreSchema.index({ userId: 1, createdAt: -1 });
restoreSchema.index({ status: 1, createdAt: 1 });
restoreSchema.index({ agentId: 1, status: 1 });
restoreSchema.index({ backupId: 1, status: 1 });
restoreSchema.index({ outcomePending: 1 });

// Verified backups: a job of its own kind (domain/verification.ts) that restores a backup into a
// scratch database on the agent's side and compares it with the backup's summary.
const verificationSchema = new Schema(
  {
    ...jobFields,
    backupId: { type: String, required: true },
    checked: { type: Schema.Types.Mixed, default: null },
    difference: { type: Schema.Types.Mixed, default: null },
  },
  { collection: 'verifications', versionKey: false },
);
verificationSchema.index({ backupId: 1, createdAt: -1 });
verificationSchema.index({ userId: 1, databaseName: 1, createdAt: -1 });
verificationSchema.index({ status: 1, createdAt: 1 });
verificationSchema.index({ agentId: 1, status: 1 });

// Short leases that let one replica at a time do one kind of work for a key (a user's agent
// registrations: the agent and database caps are checked and written under it). The _id is the
// key, so taking a free lease is one insert; an expired one is taken over by a conditional update.
const leaseSchema = new Schema(
  {
    _id: { type: String, required: true },
    holder: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'leases', versionKey: false },
);

const settingsSchema = new Schema(
  {
    userId: { type: String, required: true, unique: true },
    frequency: { type: Number, required: true }, // hours
    retention: { type: Number, required: true }, // hours
    /** The retention lock (domain/retention-lock.ts): on, and when a requested turn-off takes effect. */
    retentionLock: { type: Boolean, default: false },
    retentionLockOffAt: { type: Date, default: null },
    /** 'days' (the spec's keep N days) or 'gfs' (domain/gfs.ts); absent on older records = days. */
    retentionMode: { type: String, enum: ['days', 'gfs'], default: 'days' },
    gfs: { type: gfsCountsSchema(), default: null },
  },
  { collection: 'settings', versionKey: false, timestamps: true },
);

// An account's next retention pass (jobs/retention.ts): one small record per account with backups.
const retentionDueSchema = new Schema(
  {
    userId: { type: String, required: true },
    dueAt: { type: Date, default: null },
    dueBucket: { type: Number, default: null },
  },
  { collection: 'retention_due', versionKey: false },
);
retentionDueSchema.index({ userId: 1 }, { unique: true });
retentionDueSchema.index({ dueBucket: 1 });

export interface OrchestratorModels {
  Agent: Model<InferSchemaType<typeof agentSchema>>;
  Database: Model<InferSchemaType<typeof databaseSchema>>;
  Backup: Model<InferSchemaType<typeof backupSchema>>;
  Restore: Model<InferSchemaType<typeof restoreSchema>>;
  Verification: Model<InferSchemaType<typeof verificationSchema>>;
  Settings: Model<InferSchemaType<typeof settingsSchema>>;
  Lease: Model<InferSchemaType<typeof leaseSchema>>;
  RetentionDue: Model<InferSchemaType<typeof retentionDueSchema>>;
}

export function orchestratorModels(conn: Connection): OrchestratorModels {
  return {
    Agent: conn.model('Agent', agentSchema),
    Database: conn.model('Database', databaseSchema),
    Backup: conn.model('Backup', backupSchema),
    Restore: conn.model('Restore', restoreSchema),
    Verification: conn.model('Verification', verificationSchema),
    Settings: conn.model('Settings', settingsSchema),
    Lease: conn.model('Lease', leaseSchema),
    RetentionDue: conn.model('RetentionDue', retentionDueSchema),
  };
}
