import { z } from 'zod';
import { GFS_PERIODS, VERIFY_MODES, type GfsPeriod } from '@coffer/contracts';
import { accountStatus, backupFrequency, backupType, jobStatus as jobStatusSet, role } from '@coffer/common';
import type { auth, orchestrator } from '@coffer/proto';

/**
 * REST shapes of product §3/§7, declared once: they document the API and shape every answer. Proto
 * enums become the REST strings (or hours) through @coffer/common's value-sets.
 */
export const roleView = z.enum(role.values).meta({ id: 'Role' });
export const accountStatusView = z.enum(accountStatus.values).meta({ id: 'AccountStatus' });
export const agentStatusView = z.enum(['active', 'inactive', 'offline']).meta({ id: 'AgentStatus' });
/** The orchestrator's agent status (a string on the wire) as the REST enum; anything else is offline. */
export const toAgentStatus = (status: string): z.infer<typeof agentStatusView> =>
  status === 'active' || status === 'inactive' ? status : 'offline';

export const userView = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    role: roleView,
    apiKey: z.string(),
    isBanned: z.boolean(),
    banReason: z.string().nullable(),
    bannedAt: z.string().nullable(),
  })
  .meta({ id: 'SessionUser' });

/** GFS counts per period (a setting, or a plan's limits). */
export const gfsCountsView = z
  .object(Object.fromEntries(GFS_PERIODS.map((p) => [p, z.number()])) as Record<GfsPeriod, z.ZodNumber>)
  .meta({ id: 'GfsCounts' });
const NO_GFS = { hourly: 0, daily: 0, weekly: 0, monthly: 0, yearly: 0 };

export const planView = z
  .object({
    _id: z.string(),
    name: z.string(),
    price: z.number(),
    popular: z.boolean(),
    dbLimit: z.number(),
    retentionLimit: z.number().describe('hours'),
    storageLimit: z.number().describe('bytes'),
    frequencyLimit: z.number().describe('hours'),
    gfsLimits: gfsCountsView.describe('the most GFS retention may keep per period'),
    features: z.array(z.object({ text: z.string() })),
  })
  .meta({ id: 'Plan' });

export const profileView = z
  .object({
    _id: z.string(),
    name: z.string(),
    email: z.string(),
    plan: z.string().describe('plan id'),
    storageUsed: z.number().describe('bytes'),
    apiKey: z.string(),
    role: roleView,
  })
  .meta({ id: 'Profile' });

export const adminUserView = z
  .object({
    _id: z.string(),
    email: z.string(),
    name: z.string(),
    role: roleView,
    status: accountStatusView,
    plan: z.string(),
    isBanned: z.boolean(),
    banReason: z.string().nullable(),
    bannedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'AdminUser' });

export const toUser = (u: auth.User | undefined): z.input<typeof userView> => ({
  id: u?.id ?? '',
  email: u?.email ?? '',
  name: u?.name ?? '',
  role: u ? role.fromAnswer(u.role) : 'user',
  apiKey: u?.apiKey ?? '',
  isBanned: u?.isBanned ?? false,
  banReason: u?.banReason ?? null,
  bannedAt: u?.bannedAt ?? null,
});

export const toPlan = (p: auth.Plan): z.input<typeof planView> => ({
  _id: p.id,
  ...p,
  frequencyLimit: backupFrequency.fromAnswer(p.frequencyLimit),
  gfsLimits: p.gfsLimits ?? NO_GFS,
});

export const toProfile = (p: auth.Profile, storageUsed: number): z.input<typeof profileView> => ({
  _id: p.id,
  name: p.name,
  email: p.email,
  plan: p.plan,
  storageUsed,
  apiKey: p.apiKey,
  role: role.fromAnswer(p.role),
});

export const toAdminUser = (u: auth.AdminUser): z.input<typeof adminUserView> => ({
  _id: u.id,
  email: u.email,
  name: u.name,
  role: role.fromAnswer(u.role),
  status: accountStatus.fromAnswer(u.status),
  plan: u.plan,
  isBanned: u.isBanned,
  banReason: u.banReason ?? null,
  bannedAt: u.bannedAt ?? null,
  createdAt: u.createdAt,
});

export const jobStatus = z.enum(['pending', 'in-progress', 'completed', 'failed']).meta({ id: 'JobStatus' });

/** The newest verification of a backup (verified backups): the row's badge. */
export const verificationView = z
  .object({
    status: z.enum(['pending', 'in-progress', 'verified', 'failed']),
    createdAt: z.string(),
    completedAt: z.string().optional(),
    checked: z
      .object({ collections: z.number(), documents: z.number(), indexes: z.number() })
      .describe(
        'what the comparison covered: per collection the count, the index definitions and the digest',
      ),
    difference: z
      .object({
        collection: z.string(),
        what: z.enum(['collection', 'documents', 'indexes', 'digest']),
        expected: z.string(),
        found: z.string(),
      })
      .optional()
      .describe('the first difference found'),
    error: z.string().optional().describe('why it failed, in product words'),
  })
  .meta({ id: 'Verification' });

export const backupView = z
  .object({
    _id: z.string(),
    databaseName: z.string(),
    timestamp: z.string(),
    createdAt: z.string(),
    completedAt: z.string().optional(),
    startedAt: z
      .string()
      .optional()
      .describe('when the agent started dumping; with completedAt, how long it ran'),
    size: z.number().describe('bytes of ciphertext'),
    status: jobStatus,
    type: z.enum(['manual', 'auto']),
    error: z.string().optional(),
    lockedUntil: z
      .string()
      .optional()
      .describe('made under the retention lock: it cannot be deleted before this date (ISO 8601)'),
    agentId: z.string().optional().describe('the agent that made the backup'),
    keyFingerprint: z
      .string()
      .optional()
      .describe('fingerprint of the key the backup was encrypted with (never the key)'),
    collections: z
      .array(z.object({ name: z.string(), documents: z.number() }))
      .optional()
      .describe('the collections the backup holds, as its agent reported them (absent: not reported)'),
    verification: verificationView.optional(),
  })
  .meta({ id: 'Backup' });

export const restoreView = z
  .object({
    _id: z.string(),
    backupId: z.string(),
    databaseName: z.string(),
    status: jobStatus,
    createdAt: z.string(),
    completedAt: z.string().optional(),
    error: z.string().optional(),
    documentsRestored: z.number(),
    documentsFailed: z.number(),
    backupTimestamp: z.string().optional().describe('when the restored backup was taken'),
    sourceDatabaseName: z
      .string()
      .optional()
      .describe('the database the backup was taken of (databaseName is where it is restored)'),
    sourceAgent: z.string().optional().describe('name of the agent that made the backup'),
    targetAgent: z.string().optional().describe('name of the agent that restores it'),
    collections: z.array(z.string()).optional().describe('the collections chosen (absent: all)'),
  })
  .meta({ id: 'Restore' });

export const agentView = z
  .object({
    id: z.string(),
    name: z.string(),
    version: z.string(),
    platform: z.string(),
    status: agentStatusView,
    lastSeen: z.string(),
    offlineReason: z
      .enum(['api-key-replaced'])
      .optional()
      .meta({ description: 'why an offline agent is offline, when the service knows' }),
    databases: z.array(z.string()).optional().describe('the database labels it reports'),
    keyFingerprint: z
      .string()
      .optional()
      .describe('fingerprint of its encryption key (never the key); absent from older agents'),
  })
  .meta({ id: 'Agent' });

export const databaseView = z
  .object({
    _id: z.string(),
    name: z.string(),
    isActive: z.boolean(),
    enabled: z.boolean().meta({
      description:
        'false when the user disabled it in Settings; an enabled database that is not active is over the plan limit',
    }),
    verify: z
      .enum(VERIFY_MODES)
      .describe('verified backups: off, after each backup, or weekly (Settings → Databases)'),
  })
  .meta({ id: 'Database' });

/** A value of a known set as the service sent it, else `fallback` (a newer service's value). */
const oneOf = <T extends string>(values: readonly T[], v: string, fallback: T): T =>
  (values as readonly string[]).includes(v) ? (v as T) : fallback;

const toVerification = (v: orchestrator.Verification): z.input<typeof verificationView> => ({
  status: oneOf(['pending', 'in-progress', 'verified', 'failed'], v.status, 'failed'),
  createdAt: v.createdAt,
  completedAt: v.completedAt,
  checked: v.checked ?? { collections: 0, documents: 0, indexes: 0 },
  difference: v.difference && {
    ...v.difference,
    what: oneOf(['collection', 'documents', 'indexes', 'digest'], v.difference.what, 'digest'),
  },
  error: v.error,
});

export const toBackup = (b: orchestrator.Backup): z.input<typeof backupView> => ({
  _id: b.id,
  databaseName: b.databaseName,
  timestamp: b.timestamp || b.createdAt,
  createdAt: b.createdAt,
  completedAt: b.completedAt,
  startedAt: b.startedAt,
  size: b.size,
  status: jobStatusSet.fromAnswer(b.status),
  type: backupType.fromAnswer(b.type),
  error: b.error,
  lockedUntil: b.lockedUntil,
  agentId: b.agentId || undefined,
  keyFingerprint: b.keyFingerprint || undefined,
  ...(b.collections.length ? { collections: b.collections } : {}),
  ...(b.verification && { verification: toVerification(b.verification) }),
});

export const toRestore = (r: orchestrator.Restore): z.input<typeof restoreView> => ({
  _id: r.id,
  backupId: r.backupId,
  databaseName: r.databaseName,
  status: jobStatusSet.fromAnswer(r.status),
  createdAt: r.createdAt,
  completedAt: r.completedAt,
  error: r.error,
  documentsRestored: r.documentsRestored,
  documentsFailed: r.documentsFailed,
  backupTimestamp: r.backupTimestamp,
  sourceDatabaseName: r.sourceDatabaseName || r.databaseName,
  sourceAgent: r.sourceAgentName || undefined,
  targetAgent: r.agentName || undefined,
  ...(r.collections.length ? { collections: r.collections } : {}),
});

export const toAgent = (a: orchestrator.Agent): z.input<typeof agentView> => ({
  id: a.id,
  name: a.name,
  version: a.version,
  platform: a.platform,
  status: toAgentStatus(a.status),
  lastSeen: a.lastSeen,
  ...(a.offlineReason === 'api-key-replaced' && { offlineReason: a.offlineReason }),
  databases: a.databases,
  ...(a.keyFingerprint ? { keyFingerprint: a.keyFingerprint } : {}),
});

export const toDatabase = (d: orchestrator.Database): z.input<typeof databaseView> => ({
  _id: d.id,
  name: d.name,
  isActive: d.isActive,
  enabled: d.enabled,
  verify: oneOf(VERIFY_MODES, d.verify, 'off'),
});
