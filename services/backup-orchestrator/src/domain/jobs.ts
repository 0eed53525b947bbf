import type { JobFilter, JobStatus, JobStore } from '../store/types.js';

/** Where a job may be picked up from: by its id, and optionally its owner, agent and command. */
export type JobSelector = Omit<JobFilter<string>, 'status'>;

/**
 * The transitions backups and restores share, each a conditional single-document update that
 * publishes its event only when it actually moved the job, so a late or repeated report is a no-op.
 */
export interface JobLifecycle<R extends { id: string; status: string }> {
  kind: 'backup' | 'restore';
  store: JobStore<R>;
  /** pending → in-progress (the agent took the job); null when it was not pending. */
  start(job: JobSelector): Promise<R | null>;
  /** `from` (default pending or in-progress) → failed with the reason; null when it was in no such state. */
  fail(job: JobSelector, error: string, from?: readonly JobStatus[]): Promise<R | null>;
}

export const ACTIVE_JOB: readonly JobStatus[] = ['pending', 'in-progress'];

/** The agent's delivery report of a job command: delivered starts the job, not delivered fails it. */
export async function applyDelivery<R extends { id: string; status: string; userId: string }>(
  lifecycle: JobLifecycle<R>,
  report: {
    userId: string;
    agentId: string;
    commandId: string;
    jobId: string;
    delivered: boolean;
    error?: string;
  },
): Promise<R | null> {
  const selector = {
    id: report.jobId,
    userId: report.userId,
    agentId: report.agentId,
    commandId: report.commandId,
  };
  if (report.delivered) return lifecycle.start(selector);
  const reason = report.error?.trim() || 'no acknowledgement';
  // Only a job still waiting for its command fails this way; one the agent already started ignores it.
  return lifecycle.fail(selector, `Agent unreachable: ${reason}`, ['pending']);
}

/** What the watchdog needs to know about any job. */
export interface WatchedJob {
  id: string;
  status: string;
  agentId: string;
  commandId: string;
  createdAt: Date;
  startedAt: Date | null;
  absentSince: Date | null;
}

/** Backups and restores seen the same way by the watchdog and heartbeat reconciliation. */
export interface WatchedJobs {
  kind: 'backup' | 'restore';
  unconfirmed(before: Date): Promise<WatchedJob[]>;
  running(): Promise<WatchedJob[]>;
  /** The agent's pending and in-progress jobs. */
  ofAgent(agentId: string): Promise<WatchedJob[]>;
  start(job: JobSelector): Promise<unknown>;
  fail(job: JobSelector, error: string, from: readonly JobStatus[]): Promise<unknown>;
  /** Notes (or clears) when a heartbeat first stopped listing the running job. */
  markAbsent(id: string, since: Date | null): Promise<void>;
}

export function watched<R extends WatchedJob>(lc: JobLifecycle<R>): WatchedJobs {
  return {
    kind: lc.kind,
    unconfirmed: (before) => lc.store.unconfirmed(before),
    running: () => lc.store.running(),
    ofAgent: (agentId) => lc.store.ofAgent(agentId, ACTIVE_JOB as readonly R['status'][]),
    start: (job) => lc.start(job),
    fail: (job, error, from) => lc.fail(job, error, from),
    async markAbsent(id, since) {
      await lc.store.transition({ id, status: ['in-progress'] as readonly R['status'][] }, {
        absentSince: since,
      } as Partial<R>);
    },
  };
}
