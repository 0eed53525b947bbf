import type { EventBus, EventSubject, StreamName } from '@coffer/common';
import type { EventHandlers } from './domain/event-handlers.js';

/** Durable consumer name on every stream notification reads (`nats consumer info BACKUP notification`). */
export const NOTIFICATION_DURABLE = 'notification';

/**
 * Notification consumes, per stream, exactly these subjects (each has a handler in
 * domain/event-handlers.ts; a unit test keeps the two lists equal).
 */
export const NOTIFICATION_SUBSCRIPTIONS: Array<{ stream: StreamName; subjects: EventSubject[] }> = [
  { stream: 'AUTH', subjects: ['auth.user.deleted', 'auth.billing.plan_lapsed'] },
  {
    stream: 'BACKUP',
    subjects: ['backup.backup.completed', 'backup.backup.failed', 'backup.verification.failed'],
  },
  { stream: 'AGENT', subjects: ['agent.agent.disconnected'] },
  { stream: 'SETTINGS', subjects: ['settings.retention_lock.updated'] },
];

/** It publishes settings.notifications.updated (domain/preferences.ts) and settings.notification_email.* (domain/email-change.ts) on SETTINGS. */
export const NOTIFICATION_PUBLISHES: StreamName[] = ['SETTINGS'];

/** Every stream notification reads or writes: the bus makes sure they exist at start. */
export const notificationStreams = (): StreamName[] => [
  ...new Set([...NOTIFICATION_SUBSCRIPTIONS.map((s) => s.stream), ...NOTIFICATION_PUBLISHES]),
];

export async function startNotificationConsumers(events: Pick<EventBus, 'consume'>, handlers: EventHandlers) {
  return Promise.all(
    NOTIFICATION_SUBSCRIPTIONS.map(({ stream, subjects }) =>
      events.consume({
        stream,
        durable: NOTIFICATION_DURABLE,
        subjects,
        handler: (event) => handlers.handle(event),
      }),
    ),
  );
}
