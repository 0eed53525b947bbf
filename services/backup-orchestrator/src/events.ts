import type { EventBus, EventEnvelope, EventMap, StreamName } from '@coffer/common';

/**
 * What the orchestrator publishes:
 * - BACKUP: backup.backup.{created,started,completed,failed,deleted}, backup.schedule.due
 * - RESTORE: restore.restore.{requested,initiated,completed,failed}
 * - AGENT: agent.agent.{registered,disconnected,updated,update_failed,up_to_date,action_requested,removed},
 *   agent.command.requested
 * - SETTINGS: settings.backup.updated, settings.database.updated, settings.retention_lock.updated
 *   (lock on, turn-off requested / cancelled / in effect; the last with id `retention-lock-off:…`)
 * Message ids are derived from the job and the step (`<backupId>:completed`, a command's id, a
 * schedule slot), so a retried step is dropped by JetStream's duplicate window and by audit's
 * per-event unique index.
 *
 * What it consumes:
 * - AUTH `auth.user.deleted` (durable `orchestrator`): removes the user's agents, databases,
 *   settings, restores and backup records but those under the retention lock (storage removes the
 *   blobs on the same event, likewise).
 * - AUTH `auth.user.plan_changed` (durable `orchestrator-plans`): clamps the saved schedule to the
 *   new plan (databases over the limit need no write: activity is computed from the plan).
 * - BACKUP `backup.schedule.due` (durable `orchestrator-scheduler`, shared by every replica, so
 *   each due slot reaches one worker).
 */
export type OrchestratorEvents = Pick<EventBus, 'publish'>;

export const ORCHESTRATOR_STREAMS: StreamName[] = ['AUTH', 'BACKUP', 'RESTORE', 'AGENT', 'SETTINGS'];
export const ORCHESTRATOR_DURABLE = 'orchestrator';
export const SCHEDULER_DURABLE = 'orchestrator-scheduler';
export const PLAN_DURABLE = 'orchestrator-plans';

/** The JetStream message id of a due slot: a second replica's publish of it is a duplicate. */
export const scheduleMessageId = (userId: string, databaseName: string, slot: number) =>
  `schedule:${userId}:${databaseName}:${slot}`;

export async function startOrchestratorConsumers(
  events: Pick<EventBus, 'consume'>,
  handlers: {
    userDeleted(data: EventMap['auth.user.deleted']): Promise<void>;
    scheduleDue(data: EventMap['backup.schedule.due']): Promise<void>;
    planChanged(data: EventMap['auth.user.plan_changed']): Promise<void>;
  },
) {
  return Promise.all([
    events.consume({
      stream: 'AUTH',
      durable: ORCHESTRATOR_DURABLE,
      subjects: ['auth.user.deleted'],
      handler: async (e: EventEnvelope) => handlers.userDeleted(e.data as EventMap['auth.user.deleted']),
    }),
    // A durable of its own: a durable's subject filter is fixed once created, so widening
    // `orchestrator` would fail on installations where it already exists.
    events.consume({
      stream: 'AUTH',
      durable: PLAN_DURABLE,
      subjects: ['auth.user.plan_changed'],
      handler: async (e: EventEnvelope) => handlers.planChanged(e.data as EventMap['auth.user.plan_changed']),
    }),
    events.consume({
      stream: 'BACKUP',
      durable: SCHEDULER_DURABLE,
      subjects: ['backup.schedule.due'],
      handler: async (e: EventEnvelope) => handlers.scheduleDue(e.data as EventMap['backup.schedule.due']),
    }),
  ]);
}
