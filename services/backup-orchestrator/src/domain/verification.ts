// Verified backups (issue 20): after a backup completes and its database asks for it ("each" or
// "weekly", Settings → Databases), the agent restores that very file into a scratch database it
// names and drops, and compares it with the summary it recorded while the backup streamed (the
// summary is stored on the backup: structure and counts, never contents). A verification is a job
// of its own kind with the lifecycle backups and restores share (jobs.ts); it never deletes anything.
import { badInput, conflict, notFound, type Logger, type VerificationEvent } from '@coffer/common';
import {
  describeDifference,
  type BackupSummary,
  type VerificationChecked,
  type VerificationDifference,
  type VerifyMode,
} from '@coffer/contracts';
import type { OrchestratorEvents } from '../events.js';
import type {
  BackupRecord,
  BackupStore,
  DatabaseStore,
  RestoreStore,
  VerificationRecord,
  VerificationStore,
} from '../store/types.js';
import { noAgent, type Dispatcher } from './dispatch.js';
import { newId } from './ids.js';
import { downloadGrant } from './backups.js';
import { jobLifecycle, type DeliveryReport } from './jobs.js';
import { HOUR_MS } from './rules.js';

export const VERIFICATION_NOT_IN_PROGRESS = 'Verification is not in progress';
/** "Verify weekly": a database's next verification once its newest is this old. */
export const WEEKLY_MS = 7 * 24 * HOUR_MS;

const eventOf = (v: VerificationRecord, backup?: BackupRecord | null): VerificationEvent => {
  const taken = backup && (backup.completedAt ?? backup.createdAt);
  return {
    userId: v.userId,
    verificationId: v.id,
    backupId: v.backupId,
    databaseName: v.databaseName,
    agentId: v.agentId,
    ...(taken ? { backupTimestamp: taken.toISOString() } : {}),
  };
};

/** Whether a backup that just completed is to be verified now (the database's setting, its last one). */
export function verificationDue(
  mode: VerifyMode | undefined,
  last: Pick<VerificationRecord, 'createdAt'> | null,
  now: Date,
): boolean {
  if (mode === 'each') return true;
  if (mode === 'weekly') return !last || now.getTime() - last.createdAt.getTime() >= WEEKLY_MS;
  return false;
}

export function verifications(deps: {
  store: VerificationStore;
  backups: Pick<BackupStore, 'get' | 'transition'>;
  databases: Pick<DatabaseStore, 'byName'>;
  restores: Pick<RestoreStore, 'activeForDatabase'>;
  dispatch: Dispatcher;
  events: OrchestratorEvents;
  now: () => Date;
  log: Pick<Logger, 'warn' | 'info'>;
}) {
  const { store, events, now, log } = deps;
  const backupOf = (v: VerificationRecord) => deps.backups.get(v.backupId);

  // The agent gets the summary recorded with the backup, which the verification keeps with it.
  const expected = new Map<string, BackupSummary>();

  const lifecycle = jobLifecycle<VerificationRecord>({
    kind: 'verify',
    command: (v) => ({ backupId: v.backupId, expected: expected.get(v.id) ?? [] }),
    store,
    events: {
      started: async () => undefined,
      completed: async (v) =>
        events.publish(
          'backup.verification.completed',
          {
            ...eventOf(v, await backupOf(v)),
            checked: v.checked ?? { collections: 0, documents: 0, indexes: 0 },
          },
          { id: `${v.id}:completed` },
        ),
      failed: async (v) =>
        events.publish(
          'backup.verification.failed',
          {
            ...eventOf(v, await backupOf(v)),
            error: v.error ?? 'Verification failed',
            ...(v.difference ? { difference: v.difference } : {}),
          },
          { id: `${v.id}:failed` },
        ),
    },
    dispatch: deps.dispatch,
    now,
    log,
    messages: { notFound: 'Verification not found', notInProgress: VERIFICATION_NOT_IN_PROGRESS },
  });
  const { owned } = lifecycle;

  /** Starts a verification of the completed backup; null when none can run now (and why is logged). */
  async function start(backup: BackupRecord): Promise<VerificationRecord | null> {
    const skip = (why: string) => {
      log.info({ backupId: backup.id, why }, 'backup not verified');
      return null;
    };
    if (!backup.summary) return skip('the agent reported no summary of the dump');
    // One job at a time per database, and never beside a restore of it (the agent refuses that).
    if ((await store.activeForDatabase(backup.userId, backup.databaseName)).length)
      return skip('a verification of the database is running');
    if ((await deps.restores.activeForDatabase(backup.userId, backup.databaseName)).length)
      return skip('a restore of the database is running');
    const agent = await deps.dispatch.pickAgent(backup.userId, backup.databaseName);
    if (!agent) return skip('no connected agent reports the database');
    const at = now();
    const v = await store.insert({
      id: newId(),
      userId: backup.userId,
      backupId: backup.id,
      databaseName: backup.databaseName,
      agentId: agent.id,
      status: 'pending',
      createdAt: at,
      commandId: deps.dispatch.newCommandId(),
      commandSentAt: at,
    });
    expected.set(v.id, backup.summary);
    try {
      await lifecycle.sendCommand(v);
    } finally {
      expected.delete(v.id);
    }
    return v;
  }

  return {
    lifecycle,

    /** After a backup completed: verifies it when its database asks for it. Never throws. */
    async backupCompleted(backup: BackupRecord): Promise<VerificationRecord | null> {
      try {
        const db = await deps.databases.byName(backup.userId, backup.databaseName);
        const last = await store.latestForDatabase(backup.userId, backup.databaseName);
        if (!verificationDue(db?.verify, last, now())) return null;
        return await start(backup);
      } catch (err) {
        log.warn({ err, backupId: backup.id }, 'could not start the verification');
        return null;
      }
    },

    /** The owner asks to verify a completed backup now (the backup row's "Verify now"). */
    async request(userId: string, backupId: string): Promise<VerificationRecord> {
      const backup = await deps.backups.get(backupId);
      if (!backup || backup.userId !== userId || backup.status === 'deleting')
        throw notFound('Backup not found');
      if (backup.status !== 'completed') throw conflict('Only completed backups can be verified');
      if (!backup.summary)
        throw conflict(
          'This backup cannot be verified: it was made by an agent that did not record what it dumped. Update the agent and take a new backup.',
        );
      if ((await store.activeForDatabase(userId, backup.databaseName)).length)
        throw conflict(`A verification of '${backup.databaseName}' is already in progress`);
      if ((await deps.restores.activeForDatabase(userId, backup.databaseName)).length)
        throw conflict(`A restore of '${backup.databaseName}' is in progress; verify once it has finished`);
      if (!(await deps.dispatch.pickAgent(userId, backup.databaseName))) throw noAgent(backup.databaseName);
      const v = await start(backup);
      if (!v) throw conflict('The verification could not be started right now. Please try again shortly.');
      return v;
    },

    /** The newest verification of each backup (the backup rows' badges). */
    latestOf: (backupIds: string[]) => store.latestOf(backupIds),

    // ---- agent reports ----

    /** The agent's summary of a backup's dump, sent before the upload ends; kept with the backup. */
    async recordSummary(input: {
      userId: string;
      agentId: string;
      backupId: string;
      collections: BackupSummary;
    }): Promise<void> {
      const b = await deps.backups.get(input.backupId);
      if (!b || b.userId !== input.userId || b.agentId !== input.agentId) throw notFound('Backup not found');
      const kept = await deps.backups.transition(
        { id: b.id, status: ['pending', 'in-progress'] },
        { summary: input.collections },
      );
      if (!kept) throw conflict('The backup is no longer in progress');
    },

    async delivery(report: DeliveryReport): Promise<void> {
      await lifecycle.delivery(report);
    },

    /** Before the gateway streams the backup to the agent for its verification. */
    async beginDownload(input: { userId: string; agentId: string; verificationId: string }) {
      const sel = { id: input.verificationId, userId: input.userId, agentId: input.agentId };
      await lifecycle.start(sel);
      const v = await owned(sel);
      if (v.status !== 'in-progress') throw conflict(VERIFICATION_NOT_IN_PROGRESS);
      const backup = await backupOf(v);
      if (!backup || backup.status !== 'completed') {
        await lifecycle.fail(sel, 'The backup being verified no longer exists');
        throw conflict('The backup being verified no longer exists');
      }
      return downloadGrant(backup, v.databaseName);
    },

    /** What the comparison came to: verified, or the first difference (a failed verification). */
    async complete(input: {
      userId: string;
      agentId: string;
      verificationId: string;
      verified: boolean;
      checked: VerificationChecked;
      difference?: VerificationDifference;
    }): Promise<VerificationRecord> {
      const sel = { id: input.verificationId, userId: input.userId, agentId: input.agentId };
      const v = await owned(sel);
      const outcome = input.verified ? 'completed' : 'failed';
      if (v.status === outcome && v.completedAt) {
        await lifecycle.republish(v);
        return v;
      }
      if (input.verified && input.difference)
        throw badInput('A verified backup cannot have a difference', { field: 'difference' });
      return lifecycle.finish(sel, {
        status: outcome,
        checked: input.checked,
        difference: input.difference ?? null,
        error: input.verified
          ? null
          : input.difference
            ? `The restored copy differs: ${describeDifference(input.difference)}`
            : 'The restored copy differs from the backup',
      });
    },

    async fail(input: { userId: string; agentId: string; verificationId: string; error: string }) {
      const sel = { id: input.verificationId, userId: input.userId, agentId: input.agentId };
      await lifecycle.agentFailed(sel, input.error);
    },
  };
}
export type Verifications = ReturnType<typeof verifications>;
