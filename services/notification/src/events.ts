import type { EventBus, EventSubject, StreamName } from '@coffer/common';
import type { EventHandlers } from './domain/event-handlers.js';

/** Durable consumer name on every stream notification reads (`nats consumer info AUTH notification`). */
export const NOTIFICATION_DURABLE = 'notification';

/**
 * Notification publishes nothing. It consumes, per stream, exactly these subjects (each has a
 * handler in domain/event-handlers.ts; a unit test keeps the two lists equal).
 */
export const NOTIFICATION_SUBSCRIPTIONS: Array<{ stream: StreamName; subjects: EventSubject[] }> = [
  { stream: 'AUTH', subjects: ['auth.user.reset_requested', 'auth.user.deleted'] },
];

export const notificationStreams = (): StreamName[] => NOTIFICATION_SUBSCRIPTIONS.map((s) => s.stream);

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
