import { backupFrequency, backupType, jobStatus, retentionMode } from '@coffer/common';
import type { orchestrator } from '@coffer/proto';
import type { AgentView } from './domain/agents.js';
import type { DatabaseView } from './domain/databases.js';
import type { RetentionVerdict } from './domain/gfs.js';
import type { RetentionLockState } from './domain/retention-lock.js';
import { contentsOf } from './domain/restores.js';
import type {
  BackupRecord,
  JobStatus,
  RestoreRecord,
  SettingsRecord,
  VerificationRecord,
} from './store/types.js';

// Answers are shaped field by field, so a new field on a record never leaks by accident; value sets
// become their proto enums through @coffer/common's value-sets.

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : undefined);

/** A verification as the backup row shows it: verified (completed), failed, or still running. */
export const toVerification = (v: VerificationRecord): orchestrator.Verification => ({
  id: v.id,
  status: v.status === 'completed' ? 'verified' : v.status,
  createdAt: v.createdAt.toISOString(),
  completedAt: iso(v.completedAt),
  checked: v.checked ?? { collections: 0, documents: 0, indexes: 0 },
  difference: v.difference ?? undefined,
  error: v.error ?? undefined,
});

export const toBackup = (b: BackupRecord, verification?: VerificationRecord): orchestrator.Backup => ({
  id: b.id,
  databaseName: b.databaseName,
  // Lists and lookups skip 'deleting' backups, so callers see pending | in-progress | completed | failed.
  status: jobStatus.toProto(b.status as JobStatus),
  size: b.size,
  createdAt: b.createdAt.toISOString(),
  timestamp: (b.completedAt && b.status === 'completed' ? b.completedAt : b.createdAt).toISOString(),
  type: backupType.toProto(b.type),
  error: b.error ?? undefined,
  completedAt: iso(b.completedAt),
  agentId: b.agentId,
  keyFingerprint: b.keyFingerprint ?? undefined,
  lockedUntil: iso(b.lockedUntil),
  startedAt: iso(b.startedAt),
  collections: contentsOf(b) ?? [],
  verification: verification ? toVerification(verification) : undefined,
});

export const toVerdict = (v: RetentionVerdict): orchestrator.RetentionVerdict => ({
  backup: toBackup(v.backup),
  keep: v.keep,
  reasons: v.reasons,
  rule: v.rule,
});

export const toRestore = (r: RestoreRecord): orchestrator.Restore => ({
  id: r.id,
  backupId: r.backupId,
  databaseName: r.databaseName,
  status: jobStatus.toProto(r.status),
  createdAt: r.createdAt.toISOString(),
  completedAt: iso(r.completedAt),
  error: r.error ?? undefined,
  documentsRestored: r.documentsRestored,
  documentsFailed: r.documentsFailed,
  backupTimestamp: iso(r.backupTimestamp),
  // Older records restored into the backup's own database on the agent that made it.
  sourceDatabaseName: r.sourceDatabaseName ?? r.databaseName,
  sourceAgentId: r.sourceAgentId ?? r.agentId,
  sourceAgentName: r.sourceAgentName ?? r.agentName ?? '',
  agentId: r.agentId,
  agentName: r.agentName ?? '',
  collections: r.collections ?? [],
});

export const toAgent = (a: AgentView): orchestrator.Agent => ({
  id: a.id,
  name: a.name,
  hostname: a.hostname,
  version: a.version,
  platform: a.platform,
  status: a.status,
  lastSeen: a.lastSeen.toISOString(),
  userId: a.userId,
  offlineReason: a.status === 'offline' ? (a.offlineReason ?? '') : '',
  databases: a.databases,
  keyFingerprint: a.keyFingerprint ?? '',
});

export const toDatabase = (d: DatabaseView): orchestrator.Database => ({
  id: d.id,
  name: d.name,
  isActive: d.isActive,
  enabled: d.enabled,
  verify: d.verify ?? 'off',
});

export const toSettings = (
  s: SettingsRecord,
  lock: RetentionLockState,
  offDelayMs: number,
): orchestrator.BackupSettings => ({
  frequency: backupFrequency.toProto(s.frequency),
  retention: s.retention,
  retentionLock: {
    enabled: lock.enabled,
    offAt: iso(lock.offAt),
    offDelaySeconds: Math.round(offDelayMs / 1000),
  },
  retentionMode: retentionMode.toProto(s.retentionMode),
  gfs: s.gfs ?? undefined,
});
