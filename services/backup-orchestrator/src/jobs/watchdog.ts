import type { Logger } from '@coffer/common';
import type { AgentRecord, AgentStore } from '../store/types.js';
import type { WatchedJob, WatchedJobs } from '../domain/jobs.js';
import { hoursText } from '../domain/rules.js';

/** A running job missing from heartbeats is only judged once it has had time to show up in one. */
export const ABSENT_AFTER_START_MS = 30_000;
/** ...and only after a second heartbeat at least this much later still lacks it (a finishing job may just have left the list). */
export const ABSENT_CONFIRM_MS = 10_000;

/**
 * How long an agent whose socket closed may take to come back before its running jobs fail. A
 * network blip or a gateway restart costs the agent a reconnect of a second or a few (its jobs
 * carry on meanwhile: the upload is plain HTTP and its reports wait for the socket), while an agent
 * that was killed never comes back; so the jobs of a vanished agent fail after this grace rather
 * than after the heartbeat timeout.
 */
export const RECONNECT_GRACE_MS = 15_000;

export const UNACKNOWLEDGED = 'Agent did not acknowledge the command';
export const NO_LONGER_RUNNING = 'The agent is no longer running this job (it may have restarted)';
export const AGENT_REMOVED = 'Agent stopped responding (the agent was removed)';
export const stoppedResponding = (lastSeen: Date) =>
  `Agent stopped responding (last seen ${lastSeen.toISOString()})`;
export const tookTooLong = (hours: number) => `The job did not finish within ${hoursText(hours)}`;
const noun = (kind: JobKind) => (kind === 'verify' ? 'verification' : kind);
export const disconnectedDuring = (kind: JobKind, graceMs: number) =>
  `The agent disconnected during the ${noun(kind)} and did not reconnect within ${Math.round(graceMs / 1000)} s`;
export const stoppedBefore = (kind: JobKind, restarting: boolean) =>
  `The agent ${restarting ? 'restarted' : 'was stopped'} before the ${noun(kind)} could start`;

type JobKind = WatchedJobs['kind'];

export interface WatchdogLimits {
  commandTimeoutMs: number;
  heartbeatTimeoutMs: number;
  jobMaxHours: number;
  /** RECONNECT_GRACE_MS unless set. */
  reconnectGraceMs?: number;
}

/** Why an in-progress job must fail now, or null while its agent is alive and within bounds. */
export function judgeRunning(
  job: Pick<WatchedJob, 'createdAt' | 'startedAt'>,
  agent: Pick<AgentRecord, 'connected' | 'lastSeen' | 'disconnectedAt' | 'retired'> | null,
  now: Date,
  limits: WatchdogLimits,
  kind: JobKind = 'backup',
): string | null {
  if (!agent || agent.retired) return AGENT_REMOVED;
  const t = now.getTime();
  const grace = limits.reconnectGraceMs ?? RECONNECT_GRACE_MS;
  if (!agent.connected && agent.disconnectedAt && t - agent.disconnectedAt.getTime() > grace)
    return disconnectedDuring(kind, grace);
  if (t - agent.lastSeen.getTime() > limits.heartbeatTimeoutMs) return stoppedResponding(agent.lastSeen);
  const started = (job.startedAt ?? job.createdAt).getTime();
  if (t - started > limits.jobMaxHours * 3_600_000) return tookTooLong(limits.jobMaxHours);
  return null;
}

export type HeartbeatVerdict = 'keep' | 'start' | 'present' | 'mark-absent' | 'gone';

/** What a heartbeat listing `running` means for one of the agent's pending or in-progress jobs. */
export function judgeHeartbeat(
  job: Pick<WatchedJob, 'id' | 'status' | 'createdAt' | 'startedAt' | 'absentSince'>,
  running: ReadonlySet<string>,
  now: Date,
): HeartbeatVerdict {
  const t = now.getTime();
  if (running.has(job.id)) {
    if (job.status === 'pending') return 'start'; // the agent works on it: the command was delivered
    return job.absentSince ? 'present' : 'keep';
  }
  if (job.status !== 'in-progress') return 'keep'; // a pending command may not have reached the agent yet
  if (t - (job.startedAt ?? job.createdAt).getTime() <= ABSENT_AFTER_START_MS) return 'keep';
  if (!job.absentSince) return 'mark-absent';
  return t - job.absentSince.getTime() >= ABSENT_CONFIRM_MS ? 'gone' : 'keep';
}

/**
 * Nothing stays pending or in progress forever: unacknowledged commands, silent agents, jobs the
 * agent forgot and jobs past the maximum duration fail with a reason. Every change is a conditional
 * update, so two replicas' watchdogs never fail (or announce) a job twice.
 */
export function watchdog(deps: {
  jobs: WatchedJobs[];
  agents: Pick<AgentStore, 'get'>;
  now: () => Date;
  limits: WatchdogLimits;
  log: Pick<Logger, 'info'>;
}) {
  const { limits } = deps;
  return {
    async tick(): Promise<number> {
      const now = deps.now();
      const agents = new Map<string, AgentRecord | null>();
      const agentOf = async (id: string) => {
        if (!agents.has(id)) agents.set(id, await deps.agents.get(id));
        return agents.get(id)!;
      };
      let failed = 0;
      for (const jobs of deps.jobs) {
        for (const job of await jobs.unconfirmed(new Date(now.getTime() - limits.commandTimeoutMs))) {
          if (await jobs.fail({ id: job.id, commandId: job.commandId }, UNACKNOWLEDGED, ['pending']))
            failed++;
        }
        for (const job of await jobs.running()) {
          const reason = judgeRunning(job, await agentOf(job.agentId), now, limits, jobs.kind);
          if (!reason) continue;
          if (await jobs.fail({ id: job.id }, reason, ['in-progress'])) {
            failed++;
            deps.log.info({ kind: jobs.kind, jobId: job.id, reason }, 'job failed by the watchdog');
          }
        }
        // Outcomes whose event did not get out when the job ended (NATS was restarting).
        const republished = await jobs.publishPendingOutcomes();
        if (republished)
          deps.log.info({ kind: jobs.kind, republished }, 'published outcome events that had not gone out');
      }
      return failed;
    },

    /**
     * The agent said it is leaving: the commands it has not taken yet will not run, so their jobs
     * fail now. The jobs it runs are stopped by the agent itself, which reports each with its own
     * reason before it closes the socket (what it cannot report, the reconnect grace catches).
     */
    async agentLeaving(agentId: string, restarting: boolean): Promise<number> {
      let failed = 0;
      for (const jobs of deps.jobs) {
        for (const job of await jobs.ofAgent(agentId)) {
          if (job.status !== 'pending') continue;
          if (await jobs.fail({ id: job.id, agentId }, stoppedBefore(jobs.kind, restarting), ['pending']))
            failed++;
        }
      }
      return failed;
    },

    /** Reconciles the agent's jobs with the ids its heartbeat says it is running. */
    async heartbeat(agentId: string, runningIds: string[]): Promise<void> {
      const now = deps.now();
      const running = new Set(runningIds);
      for (const jobs of deps.jobs) {
        for (const job of await jobs.ofAgent(agentId)) {
          switch (judgeHeartbeat(job, running, now)) {
            case 'start':
              await jobs.start({ id: job.id, agentId });
              break;
            case 'present':
              await jobs.markAbsent(job.id, null);
              break;
            case 'mark-absent':
              await jobs.markAbsent(job.id, now);
              break;
            case 'gone':
              await jobs.fail({ id: job.id, agentId }, NO_LONGER_RUNNING, ['in-progress']);
              break;
            case 'keep':
              break;
          }
        }
      }
    },
  };
}
export type Watchdog = ReturnType<typeof watchdog>;
