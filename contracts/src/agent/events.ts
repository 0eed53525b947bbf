// Agent → gateway events (docs/agent-protocol.md), validated by the gateway with these schemas.
// Acknowledged events are answered with one ReportAck once the report is recorded.
import { z } from 'zod';
import { progressSchema } from '../progress.js';
import { databaseLabels, errorText, jobId, version } from './fields.js';
import { LIMITS } from '../limits.js';
import {
  backupSummarySchema,
  verificationCheckedSchema,
  verificationDifferenceSchema,
} from './verification.js';

export const UPDATE_STATUSES = ['updated', 'current', 'failed'] as const;

export const agentEventSchemas = {
  heartbeat: z.object({
    runningJobs: z.array(jobId).max(LIMITS.runningJobs),
    databases: databaseLabels,
  }),
  'backup:progress': z.object({ backupId: jobId, progress: progressSchema }),
  /** The dump failed; sent before the upload is aborted, so the backup shows this reason. */
  'backup:failed': z.object({ backupId: jobId, error: errorText }),
  /**
   * The collections a completed backup holds, with their document counts (names only, never
   * content): the restore dialog offers them as a checklist. Sent once the upload is stored.
   */
  'backup:contents': z.object({
    backupId: jobId,
    collections: z
      .array(
        z.object({
          name: z.string().min(1).max(LIMITS.collectionName),
          documents: z.number().int().nonnegative(),
        }),
      )
      .max(LIMITS.collectionsPerBackup),
  }),
  /**
   * What the dump held (verified backups): sent once mongodump has exited, before the file's end
   * is uploaded, so the service has it when the backup completes.
   */
  'backup:summary': z.object({ backupId: jobId, collections: backupSummarySchema }),
  'restore:started': z.object({ restoreId: jobId }),
  'restore:progress': z.object({ restoreId: jobId, progress: progressSchema }),
  'restore:completed': z.object({
    restoreId: jobId,
    documentsRestored: z.number().int().nonnegative(),
    documentsFailed: z.number().int().nonnegative(),
  }),
  'restore:failed': z.object({ restoreId: jobId, error: errorText }),
  'verify:progress': z.object({ verificationId: jobId, progress: progressSchema }),
  /** The comparison ran: verified, or the first difference found. */
  'verify:completed': z.object({
    verificationId: jobId,
    verified: z.boolean(),
    checked: verificationCheckedSchema,
    difference: verificationDifferenceSchema.optional(),
  }),
  /** The verification could not run to a comparison (a damaged file, the target refused, …). */
  'verify:failed': z.object({ verificationId: jobId, error: errorText }),
  /** The outcome of an `update` command (reported by the new process when it needed a restart). */
  'agent:update': z.object({
    status: z.enum(UPDATE_STATUSES),
    fromVersion: version,
    toVersion: version,
    error: errorText.optional(),
  }),
  /**
   * The agent is stopping (SIGTERM, Ctrl-C, a restart): sent before its jobs are stopped and its
   * socket closed, so the server shows it offline at once and sends it no more jobs.
   */
  'agent:leaving': z.object({ restarting: z.boolean().optional() }),
};

export type AgentEventName = keyof typeof agentEventSchemas;
/** What the agent sends with an event. */
export type AgentEventPayload<E extends AgentEventName> = z.input<(typeof agentEventSchemas)[E]>;
/** What the gateway relays once the payload is validated. */
export type ValidAgentEvent<E extends AgentEventName> = z.output<(typeof agentEventSchemas)[E]>;

/** Progress is fire-and-forget: a stale reading is worth nothing, so it is never acknowledged. */
export const PROGRESS_EVENTS = [
  'backup:progress',
  'restore:progress',
  'verify:progress',
] as const satisfies readonly AgentEventName[];
export type ProgressEventName = (typeof PROGRESS_EVENTS)[number];
/** Job reports the agent waits for (the order of the protocol depends on it). */
export const REPORT_EVENTS = [
  'backup:failed',
  'backup:contents',
  'restore:started',
  'restore:completed',
  'restore:failed',
  'backup:summary',
  'verify:completed',
  'verify:failed',
] as const satisfies readonly AgentEventName[];
export type ReportEventName = (typeof REPORT_EVENTS)[number];
/** Every acknowledged event: the job reports, heartbeats and update outcomes. */
export type AcknowledgedEventName = Exclude<AgentEventName, ProgressEventName>;

export type UpdateOutcome = AgentEventPayload<'agent:update'>;

/**
 * The gateway's answer to an acknowledged event. `retry`: the refusal is the server's passing
 * trouble (a service restarting), not the report's fault, so the agent sends it again.
 */
export type ReportAck = { ok: true } | { ok: false; error: string; retry?: boolean };

/** How long an acknowledged report may wait for its answer. */
export const REPORT_ACK_TIMEOUT_MS = 10_000;
/**
 * How long a stopping agent waits for `agent:leaving` to be acknowledged: short, so a server that
 * is slow or does not know the event (older gateways) never holds up a shutdown for long.
 */
export const LEAVING_ACK_TIMEOUT_MS = 5_000;
