import type { EventEnvelope, EventSubject } from '@coffer/common';
import { templates } from '../mail/templates.js';
import type { OutboxStore } from '../store.js';
import type { Delivery } from './delivery.js';
import type { Preferences } from './preferences.js';

/** Reset links are valid for one hour after the request (auth's RESET_TTL). */
const RESET_LINK_TTL_MS = 60 * 60 * 1000;

type Handler<S extends EventSubject> = (event: EventEnvelope<S>) => Promise<void>;
export type HandlerTable = { [S in EventSubject]?: Handler<S> };

/**
 * What notification does for each event it consumes. Every handler is idempotent: mails go through
 * the outbox (once per event id), deletions are repeatable. A later mail (backup completed/failed,
 * agent disconnected) is one more row here, one template, and its subject in events.ts.
 */
export function eventHandlers(deps: {
  delivery: Pick<Delivery, 'sendOnce'>;
  preferences: Pick<Preferences, 'remove'>;
  outbox: Pick<OutboxStore, 'forgetUser'>;
}) {
  const table: HandlerTable = {
    // A security mail: always to the account address, whatever the notification settings say.
    'auth.user.reset_requested': async ({ id, occurredAt, data }) => {
      await deps.delivery.sendOnce({
        eventId: id,
        userId: data.userId,
        kind: 'passwordReset',
        to: data.email,
        validUntil: new Date(Date.parse(occurredAt) + RESET_LINK_TTL_MS),
        build: () => templates.passwordReset({ name: data.name, resetUrl: data.resetUrl }),
      });
    },

    // The account is gone: forget its settings and its address. Its outbox records stay (without
    // the address) so a replay of its earlier events still sends nothing.
    'auth.user.deleted': async ({ data }) => {
      await deps.preferences.remove(data.userId);
      await deps.outbox.forgetUser(data.userId);
    },
  };

  return {
    subjects: Object.keys(table) as EventSubject[],
    /** Runs the event's handler; events without one are acknowledged and ignored. */
    async handle(event: EventEnvelope): Promise<void> {
      const handler = table[event.subject] as Handler<EventSubject> | undefined;
      if (handler) await handler(event);
    },
  };
}
export type EventHandlers = ReturnType<typeof eventHandlers>;
