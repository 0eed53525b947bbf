import { STREAMS, type EventBus, type EventSubject, type StreamName } from '@coffer/common';
import { auditedSubjects } from './domain/actions.js';
import type { Recorder } from './domain/recorder.js';

/** Durable consumer name on every stream audit reads (inspect with `nats consumer info AUTH audit`). */
export const AUDIT_DURABLE = 'audit';

/**
 * Audit publishes nothing. It consumes exactly the subjects of its action table, one durable
 * consumer per stream; events without a row (e.g. reset requests, which carry a reset link) are
 * never delivered to it.
 */
export function auditSubscriptions(subjects: EventSubject[] = auditedSubjects()) {
  const byStream = new Map<StreamName, EventSubject[]>();
  for (const subject of subjects) {
    const stream = streamOf(subject);
    byStream.set(stream, [...(byStream.get(stream) ?? []), subject]);
  }
  return [...byStream].map(([stream, subs]) => ({ stream, subjects: subs }));
}

/** The stream whose subject filter (`<domain>.>`) covers the subject. */
export function streamOf(subject: EventSubject): StreamName {
  for (const [name, def] of Object.entries(STREAMS) as Array<[StreamName, (typeof STREAMS)[StreamName]]>) {
    if (def.subjects.some((pattern) => subject.startsWith(pattern.replace(/>$/, '')))) return name;
  }
  throw new Error(`no stream carries ${subject}`);
}

export async function startAuditConsumers(events: Pick<EventBus, 'consume'>, recorder: Recorder) {
  return Promise.all(
    auditSubscriptions().map(({ stream, subjects }) =>
      events.consume({
        stream,
        durable: AUDIT_DURABLE,
        subjects,
        handler: async (event) => {
          await recorder.record(event);
        },
      }),
    ),
  );
}
