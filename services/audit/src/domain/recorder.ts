import type { EventEnvelope, Logger } from '@coffer/common';
import type { AuditStore } from '../store.js';
import { entriesFor } from './actions.js';

/**
 * Turns domain events into audit entries. Idempotent: the store refuses a second entry for the
 * same event and action, so a redelivered event changes nothing.
 *
 * A deleted account takes its own log along: `auth.user.deleted` writes USER_DELETED in the
 * admin's log, then removes the user's entries. Events about the user can still arrive after that
 * (their agent's disconnection, a backup that failed as it went), on other streams and so in any
 * order: an entry written for a user whom a USER_DELETED entry names is removed again, checked
 * after the write so that the two orders end the same.
 */
const LATE_MS = 5_000;

export function recorder(deps: {
  store: Pick<AuditStore, 'insert' | 'removeByUser' | 'isDeletedUser'>;
  log: Pick<Logger, 'debug' | 'warn' | 'info'>;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());
  return {
    /** Records the event's actions; resolves to how many entries were newly written. */
    async record(event: EventEnvelope): Promise<number> {
      const planned = entriesFor(event.subject, event.data);
      const timestamp = timestampOf(event);
      let written = 0;
      for (const p of planned) {
        const fresh = await deps.store.insert({ ...p, eventId: event.id, timestamp });
        if (fresh) written++;
        else deps.log.debug({ eventId: event.id, action: p.action }, 'audit entry already written');
      }
      // People look for an action in their log right after doing it: an entry that reaches it
      // this late means audit is falling behind its streams (`nats consumer info <STREAM> audit`).
      const lagMs = now().getTime() - timestamp.getTime();
      if (written > 0 && lagMs > LATE_MS) {
        deps.log.warn({ eventId: event.id, subject: event.subject, lagMs }, 'audit entry written late');
      }
      const owners = new Set(planned.map((p) => p.userId));
      if (event.subject === 'auth.user.deleted') owners.add((event.data as { userId: string }).userId);
      for (const userId of owners) {
        if (!(await deps.store.isDeletedUser(userId))) continue;
        const removed = await deps.store.removeByUser(userId);
        if (removed) deps.log.info({ userId, removed }, "removed a deleted account's audit entries");
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
