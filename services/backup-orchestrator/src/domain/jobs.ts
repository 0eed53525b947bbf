import {
  conflict,
  notFound,
  recordJobOutcome,
  unavailable,
  type AgentCommand,
  type Logger,
} from '@coffer/common';
import type { JobFilter, JobStatus, JobStore } from '../store/types.js';
import type { Dispatcher } from './dispatch.js';
import { clipError } from './rules.js';

/** The job kinds: backups, restores and verifications (verified backups). */
export type JobKind = 'backup' | 'restore' | 'verify';

/** Where a job may be picked up from: by its id, and optionally its owner, agent and command. */
export type JobSelector = Omit<JobFilter<string>, 'status'>;

/**
 * The transitions backups and restores share, each a conditional single-document update that
 * publishes its event only when it actually moved the job, so a late or repeated report is a no-op.
 */
export interface JobLifecycle<R extends { id: string; status: string }> {
  kind: JobKind;
  store: JobStore<R>;
  /** pending → in-progress (the agent took the job); null when it was not pending. */
  start(job: JobSelector): Promise<R | null>;
  /** `from` (default pending or in-progress) → failed with the reason; null when it was in no such state. */
  fail(job: JobSelector, error: string, from?: readonly JobStatus[]): Promise<R | null>;
  /** Publishes the outcomes whose first publish failed; resolves to how many went out now. */
  publishPendingOutcomes(): Promise<number>;
}

export const ACTIVE_JOB: readonly JobStatus[] = ['pending', 'in-progress'];
const FINISHED_JOB: readonly JobStatus[] = ['completed', 'failed'];

/** A delivery report of a job command, as the agent sends it through the gateway. */
export interface DeliveryReport {
  userId: string;
  agentId: string;
  commandId: string;
  jobId: string;
  delivered: boolean;
  error?: string;
  /** The agent answered and refused the command: its reason stands alone, it was not unreachable. */
  refused?: boolean;
}

/** The agent's delivery report of a job command: delivered starts the job, not delivered fails it. */
export async function applyDelivery<R extends { id: string; status: string; userId: string }>(
  lifecycle: Pick<JobLifecycle<R>, 'start' | 'fail'>,
  report: DeliveryReport,
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
  return lifecycle.fail(selector, report.refused ? reason : `Agent unreachable: ${reason}`, ['pending']);
}

/** The fields of a backup or restore the shared lifecycle reads and writes. */
export interface LifecycleJob {
  id: string;
  userId: string;
  agentId: string;
  databaseName: string;
  commandId: string;
  status: string;
  startedAt: Date | null;
  completedAt: Date | null;
  error: string | null;
  absentSince: Date | null;
  outcomePending?: boolean;
}

/** What a job kind publishes at each step; message ids derive from the job and the step. */
export interface JobEvents<R> {
  started(job: R): Promise<void>;
  completed(job: R): Promise<void>;
  failed(job: R): Promise<void>;
}

/**
 * pending → in-progress → completed/failed for backups and restores alike: each transition is one
 * conditional write that publishes its event only when it moved the job, so a late or repeated
 * report changes nothing, and a report repeated after the end publishes the same event again (same
 * message id: JetStream drops it, but a publish lost the first time gets through).
 */
export function jobLifecycle<R extends LifecycleJob>(deps: {
  kind: JobKind;
  store: JobStore<R>;
  events: JobEvents<R>;
  dispatch: Pick<Dispatcher, 'send'>;
  now: () => Date;
  log: Pick<Logger, 'warn'>;
  /** Messages in the kind's words: unknown job, and a report that needs it running. */
  messages: { notFound: string; notInProgress: string };
  /** Jobs their owner no longer sees (a backup claimed for deletion). */
  hidden?: (job: R) => boolean;
  /** What the kind's command carries beyond the job's id and database (a restore's backup). */
  command?: (
    job: R,
  ) => Partial<
    Pick<AgentCommand, 'backupId' | 'confirm' | 'sourceLabel' | 'collections' | 'keyFingerprint' | 'expected'>
  >;
}) {
  const { kind, store, events, now, messages } = deps;
  type Status = R['status'];
  const statuses = (s: readonly JobStatus[]) => s as readonly Status[];

  async function start(job: JobSelector): Promise<R | null> {
    const r = await store.transition({ ...job, status: statuses(['pending']) }, {
      status: 'in-progress',
      startedAt: now(),
    } as Partial<R>);
    if (r) await events.started(r);
    return r;
  }

  async function fail(job: JobSelector, error: string, from: readonly JobStatus[] = ACTIVE_JOB) {
    const r = await store.transition({ ...job, status: statuses(from) }, {
      status: 'failed',
      error: clipError(error),
      completedAt: now(),
      absentSince: null,
    } as Partial<R>);
    if (r) recordJobOutcome(kind, r);
    if (r) await publishOutcome(r);
    return r;
  }

  /**
   * Publishes a finished job's event. The job has moved already, so a failed publish (NATS
   * restarting) is not the caller's failure: the job is marked `outcomePending` and the watchdog
   * publishes it again (publishPendingOutcomes), with the same message id. The mark is written only
   * then: on FerretDB every update rewrites the whole document, and a second write after each
   * finish could undo a concurrent one (a deletion claimed in the same instant).
   */
  async function publishOutcome(r: R): Promise<boolean> {
    try {
      await republish(r);
      return true;
    } catch (err) {
      deps.log.warn(
        { err, [`${kind}Id`]: r.id },
        `the ${kind}'s outcome event was not published; retried later`,
      );
      if (!r.outcomePending) {
        await store
          .transition({ id: r.id, status: statuses(FINISHED_JOB) }, { outcomePending: true } as Partial<R>)
          .catch((e: unknown) =>
            deps.log.warn({ err: e, [`${kind}Id`]: r.id }, 'could not mark the outcome pending'),
          );
      }
      return false;
    }
  }

  /** The job as its owner (and, for agent calls, its agent) may see it; otherwise NOT_FOUND. */
  async function owned(sel: JobSelector): Promise<R> {
    const r = await store.get(sel.id);
    const mismatch = (sel.userId && r?.userId !== sel.userId) || (sel.agentId && r?.agentId !== sel.agentId);
    if (!r || mismatch || deps.hidden?.(r)) throw notFound(messages.notFound);
    return r;
  }

  /** The finished job's event once more (a repeated report). */
  function republish(r: R): Promise<void> {
    return r.status === 'failed' ? events.failed(r) : events.completed(r);
  }

  return {
    kind,
    store,
    start,
    fail,
    owned,
    republish,

    /** Sends the pending job's command; when that fails, the job fails and the caller gets UNAVAILABLE. */
    async sendCommand(job: R): Promise<void> {
      try {
        await deps.dispatch.send({
          commandId: job.commandId,
          userId: job.userId,
          agentId: job.agentId,
          kind,
          jobId: job.id,
          databaseName: job.databaseName,
          ...deps.command?.(job),
        });
      } catch (err) {
        deps.log.warn({ err, [`${kind}Id`]: job.id }, `could not publish the ${kind} command`);
        await fail({ id: job.id }, `The ${kind} command could not be sent to the agent`, ['pending']);
        throw unavailable(`The ${kind} could not be started right now. Please try again shortly.`);
      }
    },

    /** The agent acknowledged (or could not be reached with) the command; unknown jobs are NOT_FOUND. */
    async delivery(report: DeliveryReport): Promise<void> {
      const moved = await applyDelivery({ start, fail }, report);
      if (!moved) await owned({ id: report.jobId, userId: report.userId }); // else a late report
    },

    /**
     * pending or in-progress → the outcome in `set` (completed or failed), ended now unless `set`
     * says when; publishes the outcome's event. CONFLICT when the job was no longer active.
     */
    async finish(sel: JobSelector, set: Partial<R> & { status: 'completed' | 'failed' }): Promise<R> {
      const done = await store.transition({ ...sel, status: statuses(ACTIVE_JOB) }, {
        completedAt: now(),
        absentSince: null,
        ...set,
      } as Partial<R>);
      if (!done) throw conflict(messages.notInProgress);
      // Counted here, where the job moved: a repeated report republishes but is not counted again.
      recordJobOutcome(kind, done);
      await publishOutcome(done);
      return done;
    },

    /** Publishes the outcomes whose first publish failed; resolves to how many went out now. */
    async publishPendingOutcomes(): Promise<number> {
      let published = 0;
      for (const r of await store.outcomeUnpublished()) {
        if (!(await publishOutcome(r))) continue;
        await store.transition({ id: r.id, status: statuses(FINISHED_JOB) }, {
          outcomePending: false,
        } as Partial<R>);
        published++;
      }
      return published;
    },

    /** The agent gave up on the job; its error is kept (bounded). */
    async agentFailed(sel: JobSelector, error: string): Promise<void> {
      const r = await owned(sel);
      if (r.status === 'failed') return events.failed(r);
      const failed = await fail(sel, error.trim() || 'The agent reported a failure');
      if (!failed) throw conflict(messages.notInProgress);
    },
  };
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
  kind: JobKind;
  unconfirmed(before: Date): Promise<WatchedJob[]>;
  running(): Promise<WatchedJob[]>;
  /** The agent's pending and in-progress jobs. */
  ofAgent(agentId: string): Promise<WatchedJob[]>;
  start(job: JobSelector): Promise<unknown>;
  fail(job: JobSelector, error: string, from: readonly JobStatus[]): Promise<unknown>;
  /** Notes (or clears) when a heartbeat first stopped listing the running job. */
  markAbsent(id: string, since: Date | null): Promise<void>;
  /** Publishes outcomes whose first publish failed; how many went out. */
  publishPendingOutcomes(): Promise<number>;
}

export function watched<R extends WatchedJob>(lc: JobLifecycle<R>): WatchedJobs {
  return {
    kind: lc.kind,
    unconfirmed: (before) => lc.store.unconfirmed(before),
    running: () => lc.store.running(),
    ofAgent: (agentId) => lc.store.ofAgent(agentId, ACTIVE_JOB as readonly R['status'][]),
    start: (job) => lc.start(job),
    fail: (job, error, from) => lc.fail(job, error, from),
    publishPendingOutcomes: () => lc.publishPendingOutcomes(),
    async markAbsent(id, since) {
      await lc.store.transition({ id, status: ['in-progress'] as readonly R['status'][] }, {
        absentSince: since,
      } as Partial<R>);
    },
  };
}
