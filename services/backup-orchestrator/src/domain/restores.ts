import { AppError, badInput, conflict, notFound, type Logger, type RestoreEvent } from '@coffer/common';
import { LIST_NEWEST, type RestoreConfirmation } from '@coffer/contracts';
import type { PlanSource } from '../clients.js';
import type { OrchestratorEvents } from '../events.js';
import type {
  AgentRecord,
  AgentStore,
  BackupRecord,
  BackupStore,
  CollectionCount,
  RestoreRecord,
  RestoreStore,
} from '../store/types.js';
import type { Databases } from './databases.js';
import { noAgent, type Dispatcher } from './dispatch.js';
import { newId } from './ids.js';
import { cursorOf, type Page } from '@coffer/common';
import { jobLifecycle, type DeliveryReport } from './jobs.js';
import { downloadGrant, jobDurationMs } from './backups.js';
import { plural } from './rules.js';

export const LIST_LIMIT = LIST_NEWEST.restores;
export const RESTORE_NOT_IN_PROGRESS = 'Restore is not in progress';
export const ONLY_COMPLETED = 'Only completed backups can be restored';
export const AGENT_NOT_FOUND = 'Agent not found';
const throwNoAgent = (databaseName: string): never => {
  throw noAgent(databaseName);
};

/** What the owner of a restore stopped half-way must do: the database may hold part of the backup. */
export const partlyRestored = (r: Pick<RestoreRecord, 'databaseName' | 'backupTimestamp'>) =>
  `The database '${r.databaseName}' may be partly restored: restore ${
    r.backupTimestamp ? `the backup of ${r.backupTimestamp.toISOString()}` : 'the same backup'
  } again`;

const restoreEvent = (r: RestoreRecord): RestoreEvent => ({
  userId: r.userId,
  restoreId: r.id,
  backupId: r.backupId,
  databaseName: r.databaseName,
  agentId: r.agentId,
  backupTimestamp: r.backupTimestamp?.toISOString(),
  ...(r.sourceDatabaseName ? { sourceDatabaseName: r.sourceDatabaseName } : {}),
  ...(r.sourceAgentId ? { sourceAgentId: r.sourceAgentId, sourceAgentName: r.sourceAgentName ?? '' } : {}),
  ...(r.agentName !== undefined ? { agentName: r.agentName } : {}),
  ...(r.collections?.length ? { collections: r.collections } : {}),
});

/**
 * What a backup holds (names and counts, never content): from the summary its agent sent before the
 * upload ended, or, for a backup of an older agent, from the report it sent once stored; undefined
 * when neither came.
 */
export function contentsOf(
  backup: Pick<BackupRecord, 'collections' | 'summary'>,
): CollectionCount[] | undefined {
  const reported = backup.summary ?? backup.collections;
  return reported?.map(({ name, documents }) => ({ name, documents }));
}

/**
 * The collections a restore asked for, checked against what the backup recorded (when its agent
 * reported it); undefined for the whole backup.
 */
export function chosenCollections(
  backup: Pick<BackupRecord, 'collections' | 'summary'>,
  asked: readonly string[] | undefined,
): string[] | undefined {
  if (!asked?.length) return undefined;
  const chosen = [...new Set(asked)];
  const contents = contentsOf(backup);
  const held = contents ? new Set(contents.map((c) => c.name)) : undefined;
  const missing = held ? chosen.filter((c) => !held.has(c)) : [];
  if (missing.length)
    throw badInput(`This backup holds no collection ${missing.map((m) => `'${m}'`).join(', ')}`, {
      field: 'collections',
    });
  return chosen;
}

/** Restores: requested by the user, run by the agent that reports the database. */
export function restores(deps: {
  store: RestoreStore;
  backups: Pick<BackupStore, 'get'>;
  databases: Pick<Databases, 'requireActive'>;
  agents: Pick<AgentStore, 'get'>;
  dispatch: Dispatcher;
  plans: PlanSource;
  events: OrchestratorEvents;
  now: () => Date;
  log: Pick<Logger, 'warn'>;
}) {
  const { store, events, now } = deps;

  /**
   * The event with the restored backup's time, so the audit log says which backup it was; restores
   * recorded before the record kept that time look the backup up.
   */
  const eventOf = async (r: RestoreRecord): Promise<RestoreEvent> => {
    if (r.backupTimestamp) return restoreEvent(r);
    const backup = await deps.backups.get(r.backupId);
    const taken = backup && (backup.completedAt ?? backup.createdAt);
    return { ...restoreEvent(r), backupTimestamp: taken ? taken.toISOString() : undefined };
  };

  const base = jobLifecycle<RestoreRecord>({
    kind: 'restore',
    // The agent checks the file it downloads is this backup, and refuses what was not confirmed.
    command: (r) => ({
      backupId: r.backupId,
      confirm: r.confirm ?? [],
      // Restore anywhere: the file's binding names the source label, checked by the agent.
      ...(r.sourceDatabaseName && r.sourceDatabaseName !== r.databaseName
        ? { sourceLabel: r.sourceDatabaseName }
        : {}),
      ...(r.collections?.length ? { collections: r.collections } : {}),
      ...(r.keyFingerprint ? { keyFingerprint: r.keyFingerprint } : {}),
    }),
    store,
    events: {
      started: async (r) =>
        events.publish('restore.restore.initiated', await eventOf(r), { id: `${r.id}:initiated` }),
      completed: async (r) =>
        events.publish(
          'restore.restore.completed',
          {
            ...(await eventOf(r)),
            documentsRestored: r.documentsRestored,
            documentsFailed: r.documentsFailed,
            durationMs: jobDurationMs(r),
          },
          { id: `${r.id}:completed` },
        ),
      failed: async (r) =>
        events.publish(
          'restore.restore.failed',
          { ...(await eventOf(r)), error: r.error ?? 'Restore failed', durationMs: jobDurationMs(r) },
          { id: `${r.id}:failed` },
        ),
    },
    dispatch: deps.dispatch,
    now,
    log: deps.log,
    messages: { notFound: 'Restore not found', notInProgress: RESTORE_NOT_IN_PROGRESS },
  });
  /**
   * A restore that was running when its agent vanished (the watchdog fails those, from
   * in-progress only) may have dropped and half-filled collections: the owner must know, and
   * which backup puts the database back.
   */
  const lifecycle: typeof base = {
    ...base,
    async fail(sel, error, from) {
      if (from && from.length === 1 && from[0] === 'in-progress') {
        const r = await store.get(sel.id);
        if (r?.status === 'in-progress') error = `${error}. ${partlyRestored(r)}`;
      }
      return base.fail(sel, error, from);
    },
  };
  const { owned } = lifecycle;

  /** The agent that restores: the one the user chose (theirs, active, reporting the target), or the best one. */
  const targetAgent = async (userId: string, target: string, agentId?: string): Promise<AgentRecord> => {
    if (!agentId) return (await deps.dispatch.pickAgent(userId, target)) ?? throwNoAgent(target);
    const chosen = await deps.agents.get(agentId);
    // Another user's agent is answered as an unknown one.
    if (!chosen || chosen.userId !== userId || chosen.retired) throw notFound(AGENT_NOT_FOUND);
    const active = await deps.dispatch.activeAgent(userId, agentId, target);
    if (!active)
      throw new AppError(
        'UNAVAILABLE',
        `The agent '${chosen.name}' is not connected or does not report database '${target}'. ` +
          'Start it, or add the database on it with coffer-agent db add.',
        'AGENT_UNAVAILABLE',
      );
    return active;
  };

  return {
    lifecycle,

    /** Newest first: the newest LIST_LIMIT, or one page (services/common/src/paging.ts). */
    async list(userId: string, page: Page = {}): Promise<RestoreRecord[]> {
      const before = await cursorOf(store, userId, page.before, 'restore');
      return store.list(userId, page.limit ?? LIST_LIMIT, before);
    },

    /**
     * Restores a completed backup through a connected agent: into the database it was taken of (the
     * spec's restore), or into another database of the account, on the agent that reports it or on
     * the agent the user chose (restore anywhere), optionally only some of its collections.
     */
    async request(input: {
      userId: string;
      backupId: string;
      /** The backup's own database, as the spec's dialog sends it. */
      databaseName: string;
      confirm?: RestoreConfirmation[];
      targetDatabaseName?: string;
      targetAgentId?: string;
      collections?: string[];
    }): Promise<RestoreRecord> {
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
      const target = input.targetDatabaseName ?? backup.databaseName;
      const collections = chosenCollections(backup, input.collections);
      const plan = await deps.plans.planOf(userId);
      await deps.databases.requireActive(userId, target, plan);
      if ((await store.activeForDatabase(userId, target)).length) {
        throw conflict(`A restore of '${target}' is already in progress`);
      }
      const agent = await targetAgent(userId, target, input.targetAgentId);
      // Agents older than restore anywhere ignore its fields (they would restore every collection):
      // they report no key fingerprint, which is how they are told apart.
      if ((target !== backup.databaseName || collections) && !agent.keyFingerprint)
        throw conflict(
          `The agent '${agent.name}' is too old to restore into another database or only some collections. ` +
            'Update it (Settings, Agents, Check for Updates) and try again.',
        );
      const source = backup.agentId === agent.id ? agent : await deps.agents.get(backup.agentId);

      const at = now();
      const r = await store.insert({
        id: newId(),
        userId,
        backupId: backup.id,
        // The backup's own timestamp (as its view shows it), so the history names it after it is deleted.
        backupTimestamp: backup.completedAt ?? backup.createdAt,
        databaseName: target,
        sourceDatabaseName: backup.databaseName,
        sourceAgentId: backup.agentId,
        sourceAgentName: source?.name ?? '',
        agentName: agent.name,
        ...(collections ? { collections } : {}),
        keyFingerprint: backup.keyFingerprint,
        ...(input.confirm?.length ? { confirm: input.confirm } : {}),
        agentId: agent.id,
        status: 'pending',
        createdAt: at,
        commandId: deps.dispatch.newCommandId(),
        commandSentAt: at,
        documentsRestored: 0,
        documentsFailed: 0,
      });
      await events.publish('restore.restore.requested', restoreEvent(r), { id: `${r.id}:requested` });
      await lifecycle.sendCommand(r);
      return r;
    },

    // ---- agent reports ----

    async delivery(report: DeliveryReport): Promise<void> {
      await lifecycle.delivery(report);
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
      return downloadGrant(backup, r.databaseName);
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
        await lifecycle.republish(r); // a repeated report: same event id, dropped as a duplicate
        return r;
      }
      return lifecycle.finish(sel, {
        status: outcome,
        documentsRestored: input.documentsRestored,
        documentsFailed: failedDocs,
        error: failedDocs > 0 ? `${plural(failedDocs, 'document')} failed to restore` : null,
      });
    },

    async fail(input: { userId: string; agentId: string; restoreId: string; error: string }): Promise<void> {
      const sel = { id: input.restoreId, userId: input.userId, agentId: input.agentId };
      await lifecycle.agentFailed(sel, input.error);
    },
  };
}
export type Restores = ReturnType<typeof restores>;
