import type { JetStreamManager } from '@nats-io/jetstream';
import type { DeadLetterCount } from '../observability/metrics.js';

/**
 * The dead letters: JetStream's own advisories about events a consumer gave up on, kept in a
 * stream of their own. MAX_DELIVERIES: the handler failed `max_deliver` times. MSG_TERMINATED: the
 * consumer terminated the event because it can never be handled (malformed, see bus.ts). Each
 * advisory names the stream, the consumer and the event's stream sequence; the event itself stays
 * in its stream (limits retention) to be viewed or replayed (docs/runbook.md, "NATS by hand").
 */
export const DEAD_LETTER_STREAM = 'DEADLETTER';
const ADVISORY = '$JS.EVENT.ADVISORY.CONSUMER';
const REASONS = { MAX_DELIVERIES: 'max_deliveries', MSG_TERMINATED: 'malformed' } as const;

export const DEAD_LETTER_CONFIG = {
  name: DEAD_LETTER_STREAM,
  subjects: Object.keys(REASONS).map((kind) => `${ADVISORY}.${kind}.>`),
  // Long enough to be looked at after a holiday; advisories are small.
  max_age: 30 * 24 * 3_600_000_000_000,
  max_bytes: 256 * 1024 * 1024,
};

/** The advisory subject of one consumer's dead letters of one kind (`*` for every kind). */
export const deadLetterSubject = (stream: string, consumer: string, kind = '*') =>
  `${ADVISORY}.${kind}.${stream}.${consumer}`;

/** Creates the dead-letter stream when missing (every consuming service, at start). */
export async function ensureDeadLetterStream(jsm: JetStreamManager, replicas: number): Promise<void> {
  const existing = await jsm.streams.info(DEAD_LETTER_STREAM).catch(() => undefined);
  if (existing) {
    await jsm.streams.update(DEAD_LETTER_STREAM, {
      ...DEAD_LETTER_CONFIG,
      num_replicas: Math.max(existing.config.num_replicas ?? 1, replicas),
    });
  } else {
    await jsm.streams.add({ ...DEAD_LETTER_CONFIG, num_replicas: replicas });
  }
}

/** How many dead letters one consumer has, by reason (read at each scrape). */
export async function countDeadLetters(
  jsm: JetStreamManager,
  stream: string,
  consumer: string,
): Promise<DeadLetterCount[]> {
  const info = await jsm.streams.info(DEAD_LETTER_STREAM, {
    subjects_filter: deadLetterSubject(stream, consumer),
  });
  const bySubject = info.state.subjects ?? {};
  return Object.entries(REASONS).map(([kind, reason]) => ({
    stream,
    consumer,
    reason,
    count: bySubject[deadLetterSubject(stream, consumer, kind)] ?? 0,
  }));
}
