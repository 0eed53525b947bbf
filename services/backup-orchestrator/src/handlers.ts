import { z } from 'zod';
import {
  agentAction,
  agentUpdateStatus,
  backupFrequency,
  commandKind,
  fields,
  pageFields,
  parseInput,
  retentionMode,
  unaryHandlers,
  userTokenOf,
  type AdminCheck,
  type Logger,
} from '@coffer/common';
import {
  agentRegistrationSchema,
  agentVersion,
  DATABASE_LABEL_PATTERN,
  DATABASE_LABEL_RULE,
  isCollectionName,
  LIMITS,
  RESTORE_CONFIRMATIONS,
  VERIFY_MODES,
  collectionSummarySchema,
  verificationCheckedSchema,
  verificationDifferenceSchema,
  VERIFICATION_LIMITS,
} from '@coffer/contracts';
import type { orchestrator } from '@coffer/proto';
import type { Agents } from './domain/agents.js';
import type { Backups } from './domain/backups.js';
import type { Databases } from './domain/databases.js';
import type { Restores } from './domain/restores.js';
import type { RetentionLock } from './domain/retention-lock.js';
import type { RetentionPreview } from './domain/retention-preview.js';
import type { Settings } from './domain/settings.js';
import type { Verifications } from './domain/verification.js';
import { RETENTION_OPTIONS } from './domain/rules.js';
import { toAgent, toBackup, toDatabase, toRestore, toSettings, toVerdict } from './views.js';

const userId = fields.objectId('user');
const backupId = fields.objectId('backup');
const restoreId = fields.objectId('restore');
const agentId = fields.objectId('agent');
/** A page of a user's list (services/common/src/paging.ts). */
const page = (what: string) => z.object({ userId, ...pageFields(what) });
const verificationId = fields.objectId('verification');

/**
 * The names the service knows databases by are the agent's labels (`coffer-agent db add NAME`), not
 * MongoDB database names: the one rule in the contracts, so every label an agent accepts registers.
 */
export const databaseName = z
  .string({ error: 'Database name is required' })
  .min(1, 'Database name is required')
  .regex(DATABASE_LABEL_PATTERN, `Database name must be ${DATABASE_LABEL_RULE}`);

/** A collection a restore may choose, or a backup's agent report. */
const collectionName = z
  .string()
  .refine(isCollectionName, { error: (i) => `'${String(i.input).slice(0, 80)}' is not a collection name` });
const collectionCounts = z
  .array(z.object({ name: collectionName, documents: z.number().int().min(0) }))
  .max(LIMITS.collectionsPerBackup, 'Too many collections');

/** The caller's deadline (the agent's handshake, passed on by the gateway), if it set one. */
function callDeadline(call: { getDeadline?: () => Date | number } | undefined): Date | undefined {
  const d = call?.getDeadline?.();
  const ms = d instanceof Date ? d.getTime() : d;
  return ms !== undefined && Number.isFinite(ms) ? new Date(ms) : undefined;
}

const count = (what: string) =>
  z
    .number({ error: `${what} must be a whole number` })
    .int(`${what} must be a whole number`)
    .min(0, `${what} must not be negative`);

const retention = z.number().refine((h) => (RETENTION_OPTIONS as readonly number[]).includes(h), {
  message: 'Retention must be 72, 168, 336, 720, 2160 or 4320 hours (3, 7, 14, 30, 90 or 180 days)',
});

const agentJob = z.object({ userId, agentId });
const agentDatabases = z
  .array(databaseName)
  .max(LIMITS.databasesPerAgent, `An agent may report at most ${LIMITS.databasesPerAgent} databases`);
const agentError = z.string().max(100_000).default('');

/** gRPC edge of the orchestrator: validate, call the domain, shape the answer. */
export function orchestratorHandlers(deps: {
  log: Logger;
  agents: Agents;
  databases: Databases;
  backups: Backups;
  restores: Restores;
  verifications: Verifications;
  settings: Settings;
  lock: Pick<RetentionLock, 'get' | 'enable' | 'requestDisable' | 'offDelayMs'>;
  preview: RetentionPreview;
  /** Who an admin action acts for, from the user session token the call carries (auth decides). */
  adminCheck: AdminCheck;
}) {
  const { agents, databases, backups, restores, verifications, settings, lock } = deps;
  /** Backups with the newest verification of each (the rows' badges). */
  const withVerifications = async (list: Awaited<ReturnType<Backups['list']>>) => {
    const latest = await verifications.latestOf(list.map((b) => b.id));
    return list.map((b) => toBackup(b, latest.get(b.id)));
  };
  const settingsOf = async (user: string) =>
    toSettings(await settings.get(user), await lock.get(user), lock.offDelayMs);
  const databaseList = (list: Awaited<ReturnType<Databases['list']>>) => ({
    databases: list.map(toDatabase),
  });

  return unaryHandlers<orchestrator.OrchestratorServiceServer>(deps.log, {
    // ---- browser-facing ----
    async listBackups(req) {
      const { userId: owner, ...rest } = parseInput(page('backup'), req);
      return { backups: await withVerifications(await backups.list(owner, rest)) };
    },
    async getBackup(req) {
      const input = parseInput(z.object({ userId, backupId }), req);
      return (await withVerifications([await backups.get(input.userId, input.backupId)]))[0]!;
    },
    async beginBackupDownload(req) {
      const input = parseInput(z.object({ userId, backupId }), req);
      return backups.beginDownload(input.userId, input.backupId);
    },
    async triggerBackup(req) {
      const input = parseInput(z.object({ userId, databaseName }), req);
      return toBackup(await backups.trigger(input.userId, input.databaseName));
    },
    async deleteBackup(req) {
      const input = parseInput(z.object({ userId, backupId }), req);
      await backups.remove(input.userId, input.backupId);
      return {};
    },
    async requestVerification(req) {
      const input = parseInput(z.object({ userId, backupId }), req);
      await verifications.request(input.userId, input.backupId);
      return (await withVerifications([await backups.get(input.userId, input.backupId)]))[0]!;
    },
    async requestRestore(req) {
      const input = parseInput(
        z.object({
          userId,
          backupId,
          databaseName,
          confirm: z.array(z.enum(RESTORE_CONFIRMATIONS)).max(RESTORE_CONFIRMATIONS.length),
          // Restore anywhere: absent fields (and an empty list) keep the spec's restore.
          targetDatabaseName: databaseName.optional(),
          targetAgentId: agentId.optional(),
          collections: z.array(collectionName).max(LIMITS.collectionsPerBackup, 'Too many collections'),
        }),
        req,
      );
      return toRestore(await restores.request(input));
    },
    async listRestores(req) {
      const { userId: owner, ...rest } = parseInput(page('restore'), req);
      return { restores: (await restores.list(owner, rest)).map(toRestore) };
    },
    async systemStatus(req) {
      const input = parseInput(z.object({ userId }), req);
      return { agents: (await agents.list(input.userId)).map(toAgent), backupService: true };
    },
    async listDatabases(req) {
      const input = parseInput(z.object({ userId }), req);
      return databaseList(await databases.list(input.userId));
    },
    async setDatabaseActive(req) {
      const input = parseInput(
        z.object({
          userId,
          databaseId: fields.objectId('database'),
          isActive: z.boolean({ error: 'isActive must be true or false' }),
        }),
        req,
      );
      return databaseList(await databases.setActive(input.userId, input.databaseId, input.isActive));
    },
    async setDatabaseVerify(req) {
      const input = parseInput(
        z.object({
          userId,
          databaseId: fields.objectId('database'),
          verify: z.enum(VERIFY_MODES, { error: 'verify must be off, each or weekly' }),
        }),
        req,
      );
      return databaseList(await databases.setVerify(input.userId, input.databaseId, input.verify));
    },
    async getSettings(req) {
      return settingsOf(parseInput(z.object({ userId }), req).userId);
    },
    async setRetentionLock(req) {
      const input = parseInput(
        z.object({ userId, enabled: z.boolean({ error: 'enabled must be true or false' }) }),
        req,
      );
      if (input.enabled) await lock.enable(input.userId);
      else await lock.requestDisable(input.userId);
      return settingsOf(input.userId);
    },
    async updateSettings(req) {
      const input = parseInput(
        z.object({
          userId,
          frequency: backupFrequency.schema.optional(),
          retention: retention.optional(),
          retentionMode: retentionMode.schema.optional(),
          gfs: fields.gfsCounts.optional(),
        }),
        req,
      );
      await settings.update(input.userId, {
        frequency: input.frequency,
        retention: input.retention,
        retentionMode: input.retentionMode,
        gfs: input.gfs,
      });
      return settingsOf(input.userId);
    },
    async previewRetention(req) {
      const input = parseInput(z.object({ userId, gfs: fields.gfsCounts }), req);
      return { backups: (await deps.preview(input.userId, input.gfs)).map(toVerdict) };
    },
    async manageAgent(req) {
      const input = parseInput(
        z.object({
          userId,
          agentId,
          action: agentAction.schema,
        }),
        req,
      );
      await agents.manage(input.userId, input.agentId, input.action);
      return {};
    },
    async removeAgent(req) {
      const input = parseInput(z.object({ userId, agentId }), req);
      await agents.remove(input.agentId, { userId: input.userId });
      return {};
    },

    // ---- admin: only for the admin whose session token comes with the call ----
    async adminListAgents(req, call) {
      await deps.adminCheck(userTokenOf(call));
      const input = parseInput(z.object({ userId }), req);
      return { agents: (await agents.list(input.userId)).map(toAgent) };
    },
    async adminDeleteAgent(req, call) {
      const admin = await deps.adminCheck(userTokenOf(call));
      const input = parseInput(z.object({ agentId }), req);
      await agents.remove(input.agentId, { adminId: admin.id });
      return {};
    },
    async backupStats(_req, call) {
      await deps.adminCheck(userTokenOf(call));
      return backups.stats();
    },

    // ---- agent-facing ----
    async registerAgent(req, call) {
      // The handshake's own schema (contracts), as the gateway parsed it: one rule per field.
      const input = parseInput(agentRegistrationSchema.extend({ userId }), req);
      const { agent, databases: list } = await agents.register(
        { ...input, databases: [...new Set(input.databases)] },
        { deadline: callDeadline(call) },
      );
      return { agentId: agent.id, databases: list.map(toDatabase) };
    },
    async agentHeartbeat(req) {
      const input = parseInput(
        agentJob.extend({
          runningJobs: z.array(z.string().max(100)).max(LIMITS.runningJobs),
          databases: agentDatabases,
        }),
        req,
      );
      await agents.heartbeat({ ...input, databases: [...new Set(input.databases)] });
      return {};
    },
    async agentDisconnected(req) {
      const input = parseInput(
        agentJob.extend({ reason: z.enum(['', 'api-key-replaced']).default('') }),
        req,
      );
      await agents.disconnected(input.userId, input.agentId, input.reason || undefined);
      return {};
    },
    async agentLeaving(req) {
      const input = parseInput(agentJob.extend({ restarting: z.boolean() }), req);
      await agents.leaving(input.userId, input.agentId, input.restarting);
      return {};
    },
    async commandDelivery(req) {
      const input = parseInput(
        agentJob.extend({
          commandId: z.string().min(1, 'Command id is required').max(100),
          kind: commandKind.schema,
          jobId: z.string().max(100).optional(),
          delivered: z.boolean(),
          error: z.string().max(100_000).optional(),
          refused: z.boolean().optional(),
        }),
        req,
      );
      if (input.kind === 'backup' || input.kind === 'restore' || input.kind === 'verify') {
        const jobId = parseInput(z.object({ jobId: fields.objectId(input.kind) }), input).jobId;
        const report = { ...input, jobId };
        await { backup: backups, restore: restores, verify: verifications }[input.kind].delivery(report);
      } else if (!input.delivered) {
        deps.log.info(
          { agentId: input.agentId, kind: input.kind, error: input.error },
          'agent command not delivered',
        );
        if (input.kind === 'update')
          await agents.updateNotDelivered(
            input.userId,
            input.agentId,
            input.commandId,
            input.error ?? 'no answer',
          );
      }
      return {};
    },
    async beginUpload(req) {
      const input = parseInput(agentJob.extend({ backupId }), req);
      const grant = await backups.beginUpload(input);
      return { ...grant, lockedUntil: grant.lockedUntil?.toISOString() };
    },
    async completeBackup(req) {
      const input = parseInput(
        agentJob.extend({
          backupId,
          size: count('Size'),
          keyFingerprint: z.string().max(LIMITS.keyFingerprint, 'Key fingerprint is too long'),
        }),
        req,
      );
      const completed = await backups.complete(input);
      // Started after the completion is recorded; its own failure never fails the backup's report.
      await verifications.backupCompleted(completed);
      return toBackup(completed);
    },
    async recordBackupContents(req) {
      const input = parseInput(agentJob.extend({ backupId, collections: collectionCounts }), req);
      await backups.recordContents(input);
      return {};
    },
    async failBackup(req) {
      const input = parseInput(agentJob.extend({ jobId: backupId, error: agentError }), req);
      await backups.fail({ ...input, backupId: input.jobId });
      return {};
    },
    async beginDownload(req) {
      const input = parseInput(agentJob.extend({ restoreId }), req);
      return restores.beginDownload(input);
    },
    async restoreStarted(req) {
      const input = parseInput(agentJob.extend({ jobId: restoreId }), req);
      await restores.started({ ...input, restoreId: input.jobId });
      return {};
    },
    async completeRestore(req) {
      const input = parseInput(
        agentJob.extend({
          restoreId,
          documentsRestored: count('Documents restored'),
          documentsFailed: count('Documents failed'),
        }),
        req,
      );
      return toRestore(await restores.complete(input));
    },
    async failRestore(req) {
      const input = parseInput(agentJob.extend({ jobId: restoreId, error: agentError }), req);
      await restores.fail({ ...input, restoreId: input.jobId });
      return {};
    },
    async recordBackupSummary(req) {
      const input = parseInput(
        agentJob.extend({
          backupId,
          collections: z.array(collectionSummarySchema).max(VERIFICATION_LIMITS.collections),
        }),
        req,
      );
      await verifications.recordSummary(input);
      return {};
    },
    async beginVerificationDownload(req) {
      const input = parseInput(agentJob.extend({ verificationId }), req);
      return verifications.beginDownload(input);
    },
    async completeVerification(req) {
      const input = parseInput(
        agentJob.extend({
          verificationId,
          verified: z.boolean(),
          checked: verificationCheckedSchema,
          difference: verificationDifferenceSchema.optional(),
        }),
        req,
      );
      await verifications.complete(input);
      return {};
    },
    async failVerification(req) {
      const input = parseInput(agentJob.extend({ jobId: verificationId, error: agentError }), req);
      await verifications.fail({ ...input, verificationId: input.jobId });
      return {};
    },
    async reportAgentUpdate(req) {
      const input = parseInput(
        agentJob.extend({
          status: agentUpdateStatus.schema,
          fromVersion: agentVersion,
          toVersion: agentVersion,
          error: agentError,
        }),
        req,
      );
      await agents.updateReported(input);
      return {};
    },
  });
}
