import {
  conflict,
  isDuplicateKeyError,
  limitReached,
  notFound,
  type BackupEvent,
  type Logger,
} from '@coffer/common';
import { LIST_NEWEST } from '@coffer/contracts';
import type { BlobStore, PlanLimits, PlanSource } from '../clients.js';
import type { OrchestratorEvents } from '../events.js';
import type {
  AgentRecord,
  BackupRecord,
  BackupStore,
  BackupType,
  CollectionCount,
  RestoreStore,
} from '../store/types.js';
import type { Databases } from './databases.js';
import { noAgent, type Dispatcher } from './dispatch.js';
import { newId } from './ids.js';
import { cursorOf, type Page } from '@coffer/common';
import { jobLifecycle, type DeliveryReport } from './jobs.js';
import { assertDeletable, type RetentionLock } from './retention-lock.js';
import {
  HOUR_MS,
  backupInterval,
  manualSlotKey,
  rateLimitMessage,
  scheduledRateLimitMessage,
} from './rules.js';

export const LIST_LIMIT = LIST_NEWEST.backups;
export const NOT_IN_PROGRESS = 'Backup is not in progress';
export const STILL_RUNNING = 'This backup is still running. It can be deleted once it has finished.';
export const BEING_RESTORED =
  'This backup is being restored. It can be deleted once the restore has finished.';

/** The 429 names who used the interval: the user's own backup, or the scheduler's. */
const rateLimited = (frequencyLimit: number, next: Date, by?: BackupRecord | null) =>
  limitReached(
    by?.type === 'auto'
      ? scheduledRateLimitMessage(frequencyLimit, by.databaseName)
      : rateLimitMessage(frequencyLimit),
    'BACKUP_RATE_LIMITED',
    { nextBackupAvailable: next.toISOString() },
  );

const isRunningAuto = (b: BackupRecord) =>
  b.type === 'auto' && (b.status === 'pending' || b.status === 'in-progress');

export const backupEvent = (b: BackupRecord, type: BackupType = b.type): BackupEvent => ({
  userId: b.userId,
  backupId: b.id,
  databaseName: b.databaseName,
  agentId: b.agentId,
  type,
});

/** Where storage keeps a backup's file: under its owner, named by the backup's id. */
export const blobKey = (b: Pick<BackupRecord, 'id' | 'userId'>) => ({ userId: b.userId, blobId: b.id });

/** What a download of the backup's file needs: a restore's, a verification's or the browser's. */
export const downloadGrant = (b: BackupRecord, databaseName: string) => ({
  backupId: b.id,
  databaseName,
  size: b.size,
  blob: blobKey(b),
  createdAt: b.createdAt.toISOString(),
});

/** How long a finished job ran, from the agent's start (else the command) to its end; for the audit log. */
export const jobDurationMs = (j: { createdAt: Date; startedAt: Date | null; completedAt: Date | null }) =>
  j.completedAt ? Math.max(0, j.completedAt.getTime() - (j.startedAt ?? j.createdAt).getTime()) : undefined;

/** Backups: manual triggers, the pending → command path shared with the scheduler, agent reports, deletion. */
export function backups(deps: {
  store: BackupStore;
  restores: Pick<RestoreStore, 'activeForBackup'>;
  databases: Pick<Databases, 'requireActive'>;
  dispatch: Dispatcher;
  plans: PlanSource;
  blobs: BlobStore;
  events: OrchestratorEvents;
  /** The lock date of a backup started now, null when the owner's retention lock is off. */
  lockDateFor: RetentionLock['lockDateFor'];
  /** A backup finished: what the scheduler and the retention sweep do next may change. */
  finished?: (b: BackupRecord) => Promise<void>;
  now: () => Date;
  log: Pick<Logger, 'info' | 'warn'>;
}) {
  const { store, events, now } = deps;

  const base = jobLifecycle<BackupRecord>({
    kind: 'backup',
    store,
    events: {
      started: (b) => events.publish('backup.backup.started', backupEvent(b), { id: `${b.id}:started` }),
      // Marked before the event, so a publish that fails (and is retried) never skips the mark.
      completed: async (b) => {
        await deps.finished?.(b);
        await events.publish(
          'backup.backup.completed',
          { ...backupEvent(b), size: b.size, durationMs: jobDurationMs(b) },
          { id: `${b.id}:completed` },
        );
      },
      failed: async (b) => {
        await deps.finished?.(b);
        await events.publish(
          'backup.backup.failed',
          { ...backupEvent(b), error: b.error ?? 'Backup failed', durationMs: jobDurationMs(b) },
          { id: `${b.id}:failed` },
        );
      },
    },
    dispatch: deps.dispatch,
    now,
    log: deps.log,
    messages: { notFound: 'Backup not found', notInProgress: NOT_IN_PROGRESS },
    hidden: (b) => b.status === 'deleting',
  });
  /**
   * A failed backup keeps no blob: its upload may have been committed before the failure (the
   * orchestrator was down when storage finished, or the agent died between upload and report),
   * and a blob no backup lists would count toward usage for ever. Deleting a blob that is not
   * there is a no-op; when storage cannot be reached the blob stays until the backup is deleted.
   */
  const dropBlob = async (b: BackupRecord) => {
    await deps.blobs
      .delete(b.userId, b.id)
      .catch((err: unknown) =>
        deps.log.warn({ err, backupId: b.id }, 'could not remove the blob of a failed backup'),
      );
  };
  const lifecycle: typeof base = {
    ...base,
    async fail(sel, error, from) {
      const r = await base.fail(sel, error, from);
      if (r) await dropBlob(r);
      return r;
    },
  };
  const { owned } = lifecycle;

  async function insert(input: {
    userId: string;
    databaseName: string;
    type: BackupType;
    agent: AgentRecord;
    plan: Pick<PlanLimits, 'storageLimit'>;
    scheduleSlot?: string;
  }): Promise<BackupRecord> {
    const id = newId();
    const at = now();
    const lockedUntil = await deps.lockDateFor(input.userId, at);
    return store.insert({
      id,
      userId: input.userId,
      databaseName: input.databaseName,
      agentId: input.agent.id,
      type: input.type,
      status: 'pending',
      size: 0,
      keyFingerprint: null,
      createdAt: at,
      commandId: deps.dispatch.newCommandId(),
      commandSentAt: at,
      scheduleSlot: input.scheduleSlot ?? manualSlotKey(id),
      deleteReason: null,
      deletingSince: null,
      lockedUntil,
      storageLimit: input.plan.storageLimit,
    });
  }

  /** Announces the new pending backup and sends the agent its command; the agent's ack starts it. */
  async function announce(b: BackupRecord): Promise<void> {
    await events.publish('backup.backup.created', backupEvent(b), { id: b.id });
    await lifecycle.sendCommand(b);
  }

  /**
   * Removes the blob, announces the deletion and drops the record (the claim was taken already).
   * `rule`: the retention rule that chose an automatic deletion, for the audit log.
   */
  async function finishDeletion(b: BackupRecord, reason: BackupType, rule?: string): Promise<void> {
    await deps.blobs.delete(b.userId, b.id);
    await announceDeletion(b, reason, rule);
  }

  async function announceDeletion(b: BackupRecord, reason: BackupType, rule?: string): Promise<void> {
    await events.publish(
      'backup.backup.deleted',
      {
        ...backupEvent(b, reason),
        size: b.size,
        backupTimestamp: (b.completedAt ?? b.createdAt).toISOString(),
        ...(rule ? { rule } : {}),
      },
      { id: `${b.id}:deleted` },
    );
    await store.remove(b.id);
  }

  return {
    lifecycle,
    finishDeletion,

    /** Newest first: the newest LIST_LIMIT, or one page (services/common/src/paging.ts). */
    async list(userId: string, page: Page = {}): Promise<BackupRecord[]> {
      const before = await cursorOf(store, userId, page.before, 'backup');
      return store.list(userId, page.limit ?? LIST_LIMIT, before);
    },

    async get(userId: string, backupId: string): Promise<BackupRecord> {
      return owned({ id: backupId, userId });
    },

    /**
     * A manual backup: the database must be active, the plan's interval respected and an agent
     * connected. A scheduled backup of the database that is still running answers the request
     * instead: it is the backup the user asked for, and the dashboard follows it like its own.
     */
    async trigger(userId: string, databaseName: string): Promise<BackupRecord> {
      const plan = await deps.plans.planOf(userId);
      await deps.databases.requireActive(userId, databaseName, plan);
      const latest = await store.latestStarted(userId, databaseName);
      if (latest && isRunningAuto(latest)) return latest;
      const interval = backupInterval(latest?.createdAt, plan.frequencyLimit, now());
      if (!interval.allowed) throw rateLimited(plan.frequencyLimit, interval.nextBackupAvailable, latest);
      const agent = await deps.dispatch.pickAgent(userId, databaseName);
      if (!agent) throw noAgent(databaseName);

      const b = await insert({ userId, databaseName, type: 'manual', agent, plan });
      // Two triggers that passed the check together: the earliest backup in the window stays, the
      // others withdraw before any command is sent.
      // (The window excludes its start: a backup exactly one interval earlier is allowed.)
      const windowStart = new Date(b.createdAt.getTime() - plan.frequencyLimit * HOUR_MS + 1);
      const first = (await store.startedSince(userId, databaseName, windowStart))[0];
      if (first && first.id !== b.id) {
        await store.remove(b.id);
        if (isRunningAuto(first)) return first;
        throw rateLimited(
          plan.frequencyLimit,
          new Date(first.createdAt.getTime() + plan.frequencyLimit * HOUR_MS),
          first,
        );
      }
      await announce(b);
      return b;
    },

    /**
     * A scheduled backup for the slot; null when that slot already has one (another worker was
     * first). `plan`: the owner's, as the scheduler read it for this slot.
     */
    async startScheduled(input: {
      userId: string;
      databaseName: string;
      agent: AgentRecord;
      plan: Pick<PlanLimits, 'storageLimit'>;
      slotKey: string;
    }): Promise<BackupRecord | null> {
      let b: BackupRecord;
      try {
        b = await insert({ ...input, type: 'auto', scheduleSlot: input.slotKey });
      } catch (err) {
        if (isDuplicateKeyError(err)) return null;
        throw err;
      }
      await announce(b);
      return b;
    },

    /** The user deletes a finished backup: its blob first, then the record. */
    async remove(userId: string, backupId: string): Promise<void> {
      const b = await store.get(backupId);
      if (!b || b.userId !== userId) throw notFound('Backup not found');
      assertDeletable(b, now());
      if (b.status === 'deleting') return finishDeletion(b, b.deleteReason ?? 'manual');
      if (b.status === 'pending' || b.status === 'in-progress') throw conflict(STILL_RUNNING);
      if ((await deps.restores.activeForBackup(backupId)).length) throw conflict(BEING_RESTORED);
      const claimed = await store.transition(
        { id: backupId, userId, status: ['completed', 'failed'] },
        { status: 'deleting', deletingSince: now(), deleteReason: 'manual' },
      );
      if (!claimed) {
        const again = await store.get(backupId);
        if (!again) return; // deleted meanwhile
        if (again.status !== 'deleting') throw conflict(STILL_RUNNING);
        return finishDeletion(again, again.deleteReason ?? 'manual');
      }
      try {
        await deps.blobs.delete(userId, backupId);
      } catch (err) {
        // Storage is not answering: give the backup back so the user sees it and can retry.
        await store.transition(
          { id: backupId, status: ['deleting'] },
          { status: b.status, deletingSince: null, deleteReason: null },
        );
        throw err;
      }
      await announceDeletion(claimed, 'manual');
    },

    async stats() {
      return store.stats();
    },

    // ---- agent reports (relayed by the gateway) ----

    /** The agent acknowledged (or could not be reached with) a backup command. */
    async delivery(report: DeliveryReport): Promise<void> {
      await lifecycle.delivery(report);
    },

    /**
     * Before the gateway accepts the upload: the backup must be this agent's and running. The grant
     * is all the stream needs: where storage keeps the file, the plan's limit as the job recorded
     * it when it was created, and the lock date.
     */
    async beginUpload(input: { userId: string; agentId: string; backupId: string }) {
      const sel = { id: input.backupId, userId: input.userId, agentId: input.agentId };
      await lifecycle.start(sel); // an upload proves delivery even if the ack report is still on its way
      const b = await owned(sel);
      if (b.status !== 'in-progress') throw conflict(NOT_IN_PROGRESS);
      const storageLimit = b.storageLimit ?? (await deps.plans.planOf(input.userId)).storageLimit;
      return {
        backupId: b.id,
        storageLimit,
        databaseName: b.databaseName,
        blob: blobKey(b),
        // Storage keeps the blob (S3: Object Lock) until the same date as the record.
        lockedUntil: b.lockedUntil ?? null,
      };
    },

    /** The browser's download: the caller's backup, and completed. */
    async beginDownload(userId: string, backupId: string) {
      const b = await owned({ id: backupId, userId });
      if (b.status !== 'completed') throw conflict('Only completed backups can be downloaded');
      return downloadGrant(b, b.databaseName);
    },

    /**
     * The upload was stored: size and key fingerprint as storage's Put answered them (the gateway
     * relays that answer), so nothing is asked of storage again.
     */
    async complete(input: {
      userId: string;
      agentId: string;
      backupId: string;
      size: number;
      keyFingerprint: string;
    }): Promise<BackupRecord> {
      const sel = { id: input.backupId, userId: input.userId, agentId: input.agentId };
      const b = await owned(sel);
      if (b.status === 'completed') {
        await lifecycle.republish(b); // a repeated report: same event id, dropped as a duplicate
        return b;
      }
      if (b.status !== 'pending' && b.status !== 'in-progress') {
        // Failed meanwhile (e.g. timed out): the late upload must not linger in storage.
        await deps.blobs
          .delete(b.userId, b.id)
          .catch((err: unknown) => deps.log.warn({ err, backupId: b.id }, 'could not remove a late upload'));
        throw conflict(NOT_IN_PROGRESS);
      }
      const at = now();
      return lifecycle.finish(sel, {
        status: 'completed',
        size: input.size,
        keyFingerprint: input.keyFingerprint || null,
        completedAt: at,
        startedAt: b.startedAt ?? at,
        error: null,
      });
    },

    /**
     * What a backup holds (collection names and counts), reported by its agent once it is stored:
     * the restore dialog's checklist. Names only: the server never sees a document.
     */
    async recordContents(input: {
      userId: string;
      agentId: string;
      backupId: string;
      collections: CollectionCount[];
    }): Promise<void> {
      await owned({ id: input.backupId, userId: input.userId, agentId: input.agentId });
      await store.setCollections(input.backupId, input.agentId, input.collections);
    },

    /** The agent gave up on the backup; its error is kept (bounded). */
    async fail(input: { userId: string; agentId: string; backupId: string; error: string }): Promise<void> {
      const sel = { id: input.backupId, userId: input.userId, agentId: input.agentId };
      await lifecycle.agentFailed(sel, input.error);
      await dropBlob(await owned(sel));
    },
  };
}
export type Backups = ReturnType<typeof backups>;
