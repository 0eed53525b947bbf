import { recordSchedulerSkip, zeroSchedulerSkips, type EventMap, type Logger } from '@coffer/common';
import type { AccountSource, PlanSource } from '../clients.js';
import { scheduleMessageId, type OrchestratorEvents } from '../events.js';
import type { Backups } from '../domain/backups.js';
import type { Databases } from '../domain/databases.js';
import type { Dispatcher } from '../domain/dispatch.js';
import {
  DEFAULT_SETTINGS,
  agentStatus,
  autoSlotKey,
  backupInterval,
  firstAutoBackupAt,
  scheduleSlot,
} from '../domain/rules.js';
import type {
  AgentStore,
  BackupStore,
  DatabaseRecord,
  DatabaseStore,
  SettingsStore,
} from '../store/types.js';
import { dueVisitor, type DueRow, type DueVerdict } from './due-visitor.js';

export type DueOutcome =
  | 'created'
  | 'duplicate'
  | 'stale'
  | 'no-database'
  | 'new-database'
  | 'already-handled'
  | 'has-backup'
  | 'inactive'
  | 'plan-interval'
  | 'suspended'
  | 'no-agent';

/**
 * Scheduled backups, in two halves (conventions: "the timer only enqueues"):
 * - tick(): visits only the databases that are due (each is filed under the minute it is due next,
 *   jobs/due-visitor.ts), not every database. For a due one that an active agent reports, the
 *   current slot of the user's frequency is floor(now / frequency). A slot without a backup is
 *   published as backup.schedule.due with message id schedule:<user>:<database>:<slot>, so every
 *   replica's tick publishes it but JetStream keeps one. A database is due again at its slot's end
 *   once the slot is handled; at once when its schedule, its toggle or its agent changes, or a
 *   backup of it fails; parked (not due) while no connected agent reports it, until one registers.
 * - due(): the worker behind the shared durable consumer re-reads everything (settings, database,
 *   plan, agent) and creates the auto backup. The unique (user, database, scheduleSlot) index makes
 *   the slot's backup exist at most once even if two workers got the same slot.
 * Users who never saved settings get the defaults (daily) as soon as an agent reports an active database.
 * A database the agent has just reported is left alone for `firstBackupGraceMinutes` (of the slot
 * hour): its first backup is the user's own Trigger Backup; without one, the scheduler's comes then.
 */
export function scheduler(deps: {
  stores: {
    databases: Pick<DatabaseStore, 'byName' | 'markScheduled' | 'dueIn' | 'setDue' | 'catchUpDue'>;
    agents: Pick<AgentStore, 'list'>;
    settings: Pick<SettingsStore, 'get'>;
    backups: Pick<BackupStore, 'startedSince' | 'latestStarted'>;
  };
  backups: Pick<Backups, 'startScheduled'>;
  databases: Pick<Databases, 'list'>;
  dispatch: Pick<Dispatcher, 'pickAgent'>;
  plans: PlanSource;
  /** Banned (or deleted) accounts get no scheduled backup; asked once per due slot, not per tick. */
  accounts?: AccountSource;
  events: OrchestratorEvents;
  now: () => Date;
  /** Milliseconds in one frequency hour (3,600,000 except in tests). */
  hourMs: number;
  firstBackupGraceMinutes: number;
  heartbeatTimeoutMs: number;
  log: Pick<Logger, 'info' | 'debug'>;
}) {
  const { stores, hourMs } = deps;
  zeroSchedulerSkips();
  const graceEnd = (db: { createdAt: Date }) =>
    firstAutoBackupAt(db.createdAt, deps.firstBackupGraceMinutes, hourMs);
  const dueAgain = (db: DatabaseRecord, at: Date | null) => stores.databases.setDue(db.userId, db.name, at);
  const visitor = dueVisitor<DueRow & { db: DatabaseRecord }>({
    page: async (bucket, after, limit) =>
      (await stores.databases.dueIn(bucket, after, limit)).map((db) => ({
        key: db.id,
        dueAt: db.dueAt ?? null,
        dueBucket: db.dueBucket ?? null,
        db,
      })),
    catchUp: (now) => stores.databases.catchUpDue(now),
    refile: ({ db }, now) => dueAgain(db, now),
  });

  return {
    /** Enqueues the due slots; returns how many it published. */
    async tick(): Promise<number> {
      const now = deps.now();
      // Read once per user and tick: a user's databases come due together.
      const agentsOf = perTick((userId) => stores.agents.list(userId));
      const settingsOf = perTick((userId) => stores.settings.get(userId));
      let published = 0;
      await visitor.visit(
        now,
        async ({ db }): Promise<DueVerdict> => {
          const reporting = (await agentsOf(db.userId)).filter(
            (a) => a.connected && a.databases.includes(db.name),
          );
          // Disabled, or no agent to back it up: nothing to do until a toggle or a registration.
          if (!db.enabled || !reporting.length) {
            await dueAgain(db, null);
            return 'handled';
          }
          if (!reporting.some((a) => agentStatus(a, now, deps.heartbeatTimeoutMs) === 'active'))
            return 'waiting';
          if (graceEnd(db) > now) {
            await dueAgain(db, graceEnd(db));
            return 'handled';
          }
          const frequency = (await settingsOf(db.userId))?.frequency ?? DEFAULT_SETTINGS.frequency;
          const { slot, start, end } = scheduleSlot(now, frequency, hourMs);
          if (db.lastScheduledSlot === autoSlotKey(frequency, slot)) {
            await dueAgain(db, end);
            return 'handled';
          }
          const started = await stores.backups.startedSince(db.userId, db.name, start);
          if (started.length) {
            // One still running may yet fail (then the slot needs its auto backup): looked at again.
            if (!started.every((b) => b.status === 'completed')) return 'waiting';
            await dueAgain(db, end);
            return 'handled';
          }
          await deps.events.publish(
            'backup.schedule.due',
            { userId: db.userId, databaseName: db.name, slot },
            { id: scheduleMessageId(db.userId, db.name, slot) },
          );
          published++;
          // The worker marks the slot handled and files the next one; until then it stays due.
          return 'waiting';
        },
        () => true,
      );
      return published;
    },

    /** The worker: creates the slot's auto backup if it is still due, exactly once. */
    async due(data: EventMap['backup.schedule.due']): Promise<DueOutcome> {
      const { userId, databaseName } = data;
      const now = deps.now();
      const { frequency } = (await stores.settings.get(userId)) ?? DEFAULT_SETTINGS;
      const { slot, start, end } = scheduleSlot(now, frequency, hourMs);
      // A slot that passed (or a schedule that changed) is left to the next tick.
      if (data.slot !== slot) return 'stale';
      const key = autoSlotKey(frequency, slot);
      const db = await stores.databases.byName(userId, databaseName);
      if (!db || !db.enabled) return 'no-database';
      // Not marked: the slot is enqueued again once the grace has passed.
      if (graceEnd(db) > now) return 'new-database';
      if (db.lastScheduledSlot === key) return 'already-handled';
      const handled = () => stores.databases.markScheduled(userId, databaseName, key, end);

      if ((await stores.backups.startedSince(userId, databaseName, start)).length) {
        await handled();
        return 'has-backup';
      }
      // The gateway closes a banned owner's agents at once, but one may still count as active
      // until its disconnect is recorded: the ban is read fresh here, so nothing is sent to it.
      if (await deps.accounts?.suspended(userId)) {
        await handled();
        recordSchedulerSkip('suspended');
        deps.log.info({ userId, databaseName, slot }, 'scheduled backup skipped: the account is suspended');
        return 'suspended';
      }
      const plan = await deps.plans.planOf(userId);
      const view = (await deps.databases.list(userId, plan)).find((d) => d.name === databaseName);
      if (!view?.isActive) {
        await handled();
        recordSchedulerSkip('inactive');
        return 'inactive';
      }
      // A plan that shrank below the saved schedule: the plan's interval wins.
      if (frequency < plan.frequencyLimit) {
        const latest = await stores.backups.latestStarted(userId, databaseName);
        if (!backupInterval(latest?.createdAt, plan.frequencyLimit, now, hourMs).allowed) {
          await handled();
          recordSchedulerSkip('over_limit');
          return 'plan-interval';
        }
      }
      const agent = await deps.dispatch.pickAgent(userId, databaseName);
      if (!agent) {
        // Not marked: the next tick enqueues the slot again once the duplicate window has passed.
        recordSchedulerSkip('no_agent');
        deps.log.info({ userId, databaseName, slot }, 'scheduled backup waits for a connected agent');
        return 'no-agent';
      }
      const created = await deps.backups.startScheduled({ userId, databaseName, agent, plan, slotKey: key });
      await handled();
      if (created)
        deps.log.info({ userId, databaseName, slot, backupId: created.id }, 'scheduled backup created');
      return created ? 'created' : 'duplicate';
    },
  };
}
export type Scheduler = ReturnType<typeof scheduler>;

/** A per-user read cached for one tick. */
function perTick<T>(read: (userId: string) => Promise<T>): (userId: string) => Promise<T> {
  const seen = new Map<string, Promise<T>>();
  return (userId) => {
    let p = seen.get(userId);
    if (!p) seen.set(userId, (p = read(userId)));
    return p;
  };
}
