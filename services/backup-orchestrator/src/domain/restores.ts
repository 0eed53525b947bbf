import { badInput, conflict, notFound, unavailable, type Logger, type RestoreEvent } from '@coffer/common';
import type { PlanSource } from '../clients.js';
import type { OrchestratorEvents } from '../events.js';
import type { BackupStore, RestoreRecord, RestoreStore } from '../store/types.js';
import type { Databases } from './databases.js';
import { noAgent, type Dispatcher } from './dispatch.js';
import { newId } from './ids.js';
import { ACTIVE_JOB, applyDelivery, type JobLifecycle, type JobSelector } from './jobs.js';
import { clipError, plural } from './rules.js';

export const LIST_LIMIT = 200;
export const RESTORE_NOT_IN_PROGRESS = 'Restore is not in progress';
export const ONLY_COMPLETED = 'Only completed backups can be restored';

const restoreEvent = (r: RestoreRecord): RestoreEvent => ({
  userId: r.userId,
  restoreId: r.id,
  backupId: r.backupId,
  databaseName: r.databaseName,
  agentId: r.agentId,
});

/** Restores: requested by the user, run by the agent that reports the database. */
export function restores(deps: {
  store: RestoreStore;
  backups: Pick<BackupStore, 'get'>;
  databases: Pick<Databases, 'requireActive'>;
  dispatch: Dispatcher;
  plans: PlanSource;
  events: OrchestratorEvents;
  now: () => Date;
  log: Pick<Logger, 'warn'>;
}) {
  const { store, events, now } = deps;

  const published = {
    initiated: (r: RestoreRecord) =>
      events.publish('restore.restore.initiated', restoreEvent(r), { id: `${r.id}:initiated` }),
    completed: (r: RestoreRecord) =>
      events.publish(
        'restore.restore.completed',
        { ...restoreEvent(r), documentsRestored: r.documentsRestored, documentsFailed: r.documentsFailed },
        { id: `${r.id}:completed` },
      ),
    failed: (r: RestoreRecord) =>
      events.publish(
        'restore.restore.failed',
        { ...restoreEvent(r), error: r.error ?? 'Restore failed' },
        { id: `${r.id}:failed` },
      ),
  };

  const lifecycle: JobLifecycle<RestoreRecord> = {
    kind: 'restore',
    store,
    async start(job) {
      const r = await store.transition(
        { ...job, status: ['pending'] },
        { status: 'in-progress', startedAt: now() },
      );
      if (r) await published.initiated(r);
      return r;
    },
    async fail(job, error, from = ACTIVE_JOB) {
      const r = await store.transition(
        { ...job, status: from },
        { status: 'failed', error: clipError(error), completedAt: now(), absentSince: null },
      );
      if (r) await published.failed(r);
      return r;
    },
  };

  async function owned(sel: JobSelector): Promise<RestoreRecord> {
    const r = await store.get(sel.id);
    const mismatch = (sel.userId && r?.userId !== sel.userId) || (sel.agentId && r?.agentId !== sel.agentId);
    if (!r || mismatch) throw notFound('Restore not found');
    return r;
  }

  return {
    lifecycle,

    async list(userId: string): Promise<RestoreRecord[]> {
      return store.list(userId, LIST_LIMIT);
    },

    /** Restores a completed backup into the database it was taken of, through a connected agent. */
    async request(input: { userId: string; backupId: string; databaseName: string }): Promise<RestoreRecord> {
      const { userId } = input;
      const backup = await deps.backups.get(input.backupId);
      if (!backup || backup.userId !== userId || backup.status === 'deleting')
        throw notFound('Backup not found');
      if (backup.status !== 'completed') throw conflict(ONLY_COMPLETED);
      if (input.databaseName !== backup.databaseName) {
        throw badInput(`This backup can only be restored into '${backup.databaseName}'`, {
          field: 'databaseName',
        });
      }
      const plan = await deps.plans.planOf(userId);
      await deps.databases.requireActive(userId, backup.databaseName, plan);
      if ((await store.activeForDatabase(userId, backup.databaseName)).length) {
        throw conflict(`A restore of '${backup.databaseName}' is already in progress`);
      }
      const agent = await deps.dispatch.pickAgent(userId, backup.databaseName);
      if (!agent) throw noAgent(backup.databaseName);

      const at = now();
      const r = await store.insert({
        id: newId(),
        userId,
        backupId: backup.id,
        databaseName: backup.databaseName,
        agentId: agent.id,
        status: 'pending',
        createdAt: at,
        commandId: deps.dispatch.newCommandId(),
        commandSentAt: at,
        documentsRestored: 0,
        documentsFailed: 0,
      });
      await events.publish('restore.restore.requested', restoreEvent(r), { id: `${r.id}:requested` });
      try {
        await deps.dispatch.send({
          commandId: r.commandId,
          userId,
          agentId: agent.id,
          kind: 'restore',
          jobId: r.id,
          databaseName: r.databaseName,
        });
      } catch (err) {
        deps.log.warn({ err, restoreId: r.id }, 'could not publish the restore command');
        await lifecycle.fail({ id: r.id }, 'The restore command could not be sent to the agent', ['pending']);
        throw unavailable('The restore could not be started right now. Please try again shortly.');
      }
      return r;
    },

    // ---- agent reports ----

    async delivery(report: {
      userId: string;
      agentId: string;
      commandId: string;
      jobId: string;
      delivered: boolean;
      error?: string;
    }): Promise<void> {
      const moved = await applyDelivery(lifecycle, report);
      if (!moved) await owned({ id: report.jobId, userId: report.userId });
    },

    /** Before the gateway streams the backup to the agent: this agent's running restore, and its backup. */
    async beginDownload(input: { userId: string; agentId: string; restoreId: string }) {
      const sel = { id: input.restoreId, userId: input.userId, agentId: input.agentId };
      await lifecycle.start(sel);
      const r = await owned(sel);
      if (r.status !== 'in-progress') throw conflict(RESTORE_NOT_IN_PROGRESS);
      const backup = await deps.backups.get(r.backupId);
      if (!backup || backup.status !== 'completed') {
        await lifecycle.fail(sel, 'The backup being restored no longer exists');
        throw conflict('The backup being restored no longer exists');
      }
      return { backupId: backup.id, databaseName: r.databaseName, size: backup.size };
    },

    /** The agent began restoring; repeating it changes nothing. */
    async started(input: { userId: string; agentId: string; restoreId: string }): Promise<void> {
      const sel = { id: input.restoreId, userId: input.userId, agentId: input.agentId };
      await lifecycle.start(sel);
      const r = await owned(sel);
      if (r.status !== 'in-progress') throw conflict(RESTORE_NOT_IN_PROGRESS);
    },

    /** Documents restored and failed; any failed document makes the restore a failure. */
    async complete(input: {
      userId: string;
      agentId: string;
      restoreId: string;
      documentsRestored: number;
      documentsFailed: number;
    }): Promise<RestoreRecord> {
      const sel = { id: input.restoreId, userId: input.userId, agentId: input.agentId };
      const r = await owned(sel);
      const failedDocs = input.documentsFailed;
      const outcome = failedDocs > 0 ? 'failed' : 'completed';
      if (r.status === outcome && r.completedAt) {
        await (outcome === 'failed' ? published.failed(r) : published.completed(r));
        return r;
      }
      const done = await store.transition(
        { ...sel, status: ACTIVE_JOB },
        {
          status: outcome,
          documentsRestored: input.documentsRestored,
          documentsFailed: failedDocs,
          error: failedDocs > 0 ? `${plural(failedDocs, 'document')} failed to restore` : null,
          completedAt: now(),
          absentSince: null,
        },
      );
      if (!done) throw conflict(RESTORE_NOT_IN_PROGRESS);
      await (outcome === 'failed' ? published.failed(done) : published.completed(done));
      return done;
    },

    async fail(input: { userId: string; agentId: string; restoreId: string; error: string }): Promise<void> {
      const sel = { id: input.restoreId, userId: input.userId, agentId: input.agentId };
      const r = await owned(sel);
      if (r.status === 'failed') {
        await published.failed(r);
        return;
      }
      const failed = await lifecycle.fail(sel, input.error.trim() || 'The agent reported a failure');
      if (!failed) throw conflict(RESTORE_NOT_IN_PROGRESS);
    },
  };
}
export type Restores = ReturnType<typeof restores>;
