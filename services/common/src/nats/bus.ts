import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { headers } from '@nats-io/nats-core';
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import {
  STREAMS,
  type EnvelopeOf,
  type EventEnvelope,
  type EventMap,
  type EventSubject,
  type LiveSubject,
  type StreamName,
} from '../events.js';
import type { Logger } from '../logger.js';
import {
  currentRequestId,
  REQUEST_ID_HEADER,
  requestIdFrom,
  runInRequest,
} from '../observability/context.js';
import { watchConsumerLag, watchDeadLetters } from '../observability/metrics.js';
import { eventProblem } from '../event-schemas.js';
import { countDeadLetters, ensureDeadLetterStream } from './dead-letters.js';
import { injectTraceContext, withConsumerSpan } from '../observability/trace-context.js';
import { hasNatsCredentials, natsConnectOptions, type NatsCredentials } from './connect-options.js';

const NS_PER_HOUR = 3_600_000_000_000;

// Window in which JetStream drops a second publish of the same message id.
const DUPLICATE_WINDOW_NS = 2 * 60 * 1_000_000_000;

/**
 * Headers every published message carries besides its own: the current request's id (the consumer
 * logs under it) and, with tracing on, the trace context.
 */
function propagationHeaders(h = headers()): ReturnType<typeof headers> {
  const requestId = currentRequestId();
  if (requestId) h.set(REQUEST_ID_HEADER, requestId);
  injectTraceContext(h);
  return h;
}

export interface Consumption {
  stop(): Promise<void>;
}

/**
 * How often an event whose handler fails is tried, and how long between tries: the delay doubles
 * from `firstDelayMs` up to `maxDelayMs`. The defaults retry for about half an hour (a database or
 * a service restarting), then the event goes to the dead letters.
 */
export interface RetryPolicy {
  maxDeliver: number;
  firstDelayMs: number;
  maxDelayMs: number;
}
export const DEFAULT_RETRY: RetryPolicy = { maxDeliver: 12, firstDelayMs: 5_000, maxDelayMs: 300_000 };

/** The wait before the next try after the `deliveryCount`-th one failed. */
export const retryDelayMs = (deliveryCount: number, retry: RetryPolicy = DEFAULT_RETRY): number =>
  Math.min(retry.maxDelayMs, retry.firstDelayMs * 2 ** Math.max(0, deliveryCount - 1));

/** Typed publish/consume over NATS (events.ts's EventMap) with idempotent stream and consumer creation. */
export interface EventBus {
  nc: NatsConnection;
  publish<S extends EventSubject>(subject: S, data: EventMap[S], opts?: { id?: string }): Promise<void>;
  /** A durable consumer; the handler gets envelopes of `subjects`, narrowed by `event.subject`. */
  consume<S extends EventSubject>(opts: {
    stream: StreamName;
    durable: string;
    subjects: readonly S[];
    handler: (event: EnvelopeOf<S>) => Promise<void>;
    /** Tests shorten it; services keep DEFAULT_RETRY. */
    retry?: RetryPolicy;
  }): Promise<Consumption>;
  /** Plain NATS publish, for high-rate messages nobody needs replayed (live progress). */
  publishLive<S extends LiveSubject>(subject: S, data: EventMap[S]): void;
  /** Plain NATS subscription in a queue group: each message reaches one member of the group. */
  subscribeLive<S extends LiveSubject>(
    subject: S,
    queue: string,
    handler: (data: EventMap[S]) => void,
  ): { stop(): void };
  close(): Promise<void>;
}

/**
 * Creates (or updates) the named streams; safe to call from every replica at every start. The
 * replica count only ever grows here: a service started with a smaller setting (an old pod during
 * a rollout) must not shrink a clustered stream.
 */
export async function ensureStreams(jsm: JetStreamManager, names: StreamName[], replicas = 1): Promise<void> {
  for (const name of names) {
    const def = STREAMS[name];
    const config = {
      name,
      subjects: [...def.subjects],
      max_age: def.maxAgeHours * NS_PER_HOUR,
      max_bytes: def.maxBytes,
      duplicate_window: DUPLICATE_WINDOW_NS,
    };
    const existing = await jsm.streams.info(name).catch(() => undefined);
    if (existing) {
      await jsm.streams.update(name, {
        ...config,
        num_replicas: Math.max(existing.config.num_replicas ?? 1, replicas),
      });
    } else {
      await jsm.streams.add({ ...config, num_replicas: replicas });
    }
  }
}

/** A service's bus from its settings (NATS_URL, NATS_STREAM_REPLICAS, the NATS_* credentials). */
export const connectServiceBus = (
  config: { NATS_URL: string; NATS_STREAM_REPLICAS: number; NODE_ENV?: string } & NatsCredentials,
  name: string,
  log: Logger,
  streams: StreamName[],
): Promise<EventBus> => {
  if (config.NODE_ENV === 'production' && !hasNatsCredentials(config.NATS_URL, config)) {
    log.warn('NATS credentials are not set: anyone who reaches the NATS server can read every event');
  }
  return connectEventBus({
    url: config.NATS_URL,
    credentials: config,
    replicas: config.NATS_STREAM_REPLICAS,
    name,
    log,
    streams,
  });
};

/** Connects to NATS and makes sure the given streams exist. */
export async function connectEventBus(opts: {
  /** May carry a user and password (nats://user:pass@host:port). */
  url: string;
  credentials?: NatsCredentials;
  name: string;
  log: Logger;
  streams: StreamName[];
  /** JetStream stream replicas (NATS_STREAM_REPLICAS); 1 on a single server. */
  replicas?: number;
}): Promise<EventBus> {
  const nc = await connect({
    ...natsConnectOptions(opts.url, opts.credentials),
    name: opts.name,
    maxReconnectAttempts: -1,
  });
  const js: JetStreamClient = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm, opts.streams, opts.replicas ?? 1);
  let deadLettersReady: Promise<void> | undefined;
  const consumptions = new Set<Consumption>();

  return {
    nc,
    async publish(subject, data, o) {
      const envelope: EventEnvelope = {
        id: o?.id ?? randomUUID(),
        subject,
        occurredAt: new Date().toISOString(),
        data,
      };
      const h = headers();
      h.set('Coffer-Event', subject);
      propagationHeaders(h);
      await js.publish(subject, JSON.stringify(envelope), { msgID: envelope.id, headers: h });
    },

    async consume({ stream, durable, subjects, handler, retry = DEFAULT_RETRY }) {
      // Before the consumer exists: its first dead letter must have a stream to land in.
      await (deadLettersReady ??= ensureDeadLetterStream(jsm, opts.replicas ?? 1));
      const config = {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subjects: [...subjects],
        ack_wait: 30 * 1_000_000_000,
        max_deliver: retry.maxDeliver,
      };
      try {
        await jsm.consumers.info(stream, durable);
        await jsm.consumers.update(stream, durable, config);
      } catch {
        await jsm.consumers.add(stream, config);
      }
      const consumer = await js.consumers.get(stream, durable);
      const unwatch = watchConsumerLag(stream, durable, (st, c) => jsm.consumers.info(st, c));
      const unwatchDead = watchDeadLetters(() => countDeadLetters(jsm, stream, durable));
      const messages = await consumer.consume({ max_messages: 64 });
      const done = (async () => {
        for await (const m of messages) {
          // Checked against the subject's schema (event-schemas.ts) first: a malformed event can
          // never succeed, so it is terminated at once (JetStream's MSG_TERMINATED advisory puts it
          // in the dead letters) instead of failing the handler on every redelivery.
          let problem: string | null;
          let raw: unknown;
          try {
            raw = m.json<unknown>();
            problem = eventProblem(m.subject, raw);
          } catch {
            problem = 'not JSON';
          }
          if (problem !== null) {
            opts.log.error(
              { subject: m.subject, seq: m.seq, stream, consumer: durable, problem },
              'malformed event: moved to the dead letters',
            );
            m.term(`malformed: ${problem}`.slice(0, 256));
            continue;
          }
          // Typed by the subject filter and the schema: only valid `subjects` reach the handler.
          const event = raw as EnvelopeOf<(typeof subjects)[number]>;
          // An event with no request behind it (a timer, an older publisher) gets an id of its own.
          const ctx = { requestId: requestIdFrom(m.headers?.get(REQUEST_ID_HEADER)) };
          try {
            await runInRequest(ctx, () =>
              withConsumerSpan(`${m.subject} process`, m.headers, { 'messaging.system': 'nats' }, () =>
                handler(event),
              ),
            );
            m.ack();
          } catch (err) {
            // Redelivered later; handlers are idempotent, so a partial first attempt is harmless.
            // After the last try JetStream's MAX_DELIVERIES advisory puts it in the dead letters.
            const attempt = m.info.deliveryCount;
            const last = attempt >= retry.maxDeliver;
            runInRequest(ctx, () =>
              opts.log.warn(
                { err, subject: m.subject, eventId: event.id, attempt, of: retry.maxDeliver },
                last
                  ? 'event handler failed for the last time: moved to the dead letters'
                  : 'event handler failed; will retry',
              ),
            );
            m.nak(retryDelayMs(attempt, retry));
          }
        }
      })();
      const c: Consumption = {
        async stop() {
          unwatch();
          unwatchDead();
          await messages.close();
          await done;
          consumptions.delete(c);
        },
      };
      consumptions.add(c);
      return c;
    },

    publishLive(subject, data) {
      const h = propagationHeaders();
      nc.publish(subject, JSON.stringify(data), h.keys().length > 0 ? { headers: h } : undefined);
    },

    subscribeLive(subject, queue, handler) {
      const sub = nc.subscribe(subject, {
        queue,
        callback: (err, msg) => {
          if (err) return;
          try {
            // Only gateways publish live subjects, with publishLive: the payload is typed there.
            const data = msg.json<EventMap[typeof subject]>();
            runInRequest({ requestId: requestIdFrom(msg.headers?.get(REQUEST_ID_HEADER)) }, () =>
              handler(data),
            );
          } catch (e) {
            opts.log.warn({ err: e, subject }, 'live message handler failed');
          }
        },
      });
      return { stop: () => sub.unsubscribe() };
    },

    async close() {
      for (const c of [...consumptions]) await c.stop();
      await nc.drain();
    },
  };
}
