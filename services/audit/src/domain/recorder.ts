import type { EventEnvelope, Logger } from '@coffer/common';
import type { AuditStore } from '../store.js';
import { entriesFor } from './actions.js';

/**
 * Turns domain events into audit entries. Idempotent: the store refuses a second entry for the
 * same event and action, so a redelivered event changes nothing.
 */
export function recorder(deps: { store: Pick<AuditStore, 'insert'>; log: Pick<Logger, 'debug' | 'warn'> }) {
  return {
    /** Records the event's actions; resolves to how many entries were newly written. */
    async record(event: EventEnvelope): Promise<number> {
      const planned = entriesFor(event.subject, event.data);
      let written = 0;
      for (const p of planned) {
        const fresh = await deps.store.insert({ ...p, eventId: event.id, timestamp: timestampOf(event) });
        if (fresh) written++;
        else deps.log.debug({ eventId: event.id, action: p.action }, 'audit entry already written');
      }
      return written;
    },
  };

  function timestampOf(event: EventEnvelope): Date {
    const t = new Date(event.occurredAt);
    if (!Number.isNaN(t.getTime())) return t;
    deps.log.warn(
      { eventId: event.id, subject: event.subject },
      'event without a valid occurredAt; using now',
    );
    return new Date();
  }
}
export type Recorder = ReturnType<typeof recorder>;
