import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import {
  connectEventBus,
  createLogger,
  DEAD_LETTER_STREAM,
  deadLetterSubject,
  EVENT_CONSUMERS,
  metricsRegistry,
  natsConnectOptions,
  type EventBus,
} from '@coffer/common';
import { eventually } from '../helpers';

// NATS that cannot jam silently, against the running stack: a malformed event is moved to the
// dead letters by the real audit service at once (not retried), an event whose handler always
// fails lands there after max_deliver tries, and the metric the CofferDeadLetters alert reads
// (deploy/prometheus/coffer-alerts.yml) counts both.

const log = createLogger('dead-letters-test', 'silent');
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  nc = await connect({ ...natsConnectOptions(process.env.COFFER_NATS_URL!), name: 'dead-letters-test' });
  jsm = await jetstreamManager(nc);
});
afterAll(async () => {
  await nc.drain();
});

/** A process's ops port, from its "… ready" log line. */
function opsPortOf(proc: string): number {
  const text = fs.readFileSync(path.join(process.env.COFFER_LOG_DIR!, `${proc}.log`), 'utf8');
  for (const l of text.split('\n')) {
    if (!l.startsWith('{')) continue;
    const line = JSON.parse(l) as { msg?: string; opsPort?: number };
    if (typeof line.opsPort === 'number' && line.msg?.endsWith(' ready')) return line.opsPort;
  }
  throw new Error(`no ready line in ${proc}.log`);
}

/** One sample of a metric from a scrape's text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.split(' ').pop());
  }
  return undefined;
}

const deadLetterCount = async (stream: string, consumer: string, kind: string) =>
  (await jsm.streams.info(DEAD_LETTER_STREAM, { subjects_filter: deadLetterSubject(stream, consumer, kind) }))
    .state.subjects?.[deadLetterSubject(stream, consumer, kind)] ?? 0;

it('bounds every stream by age and size', async () => {
  for (const name of [
    'AUTH',
    'BACKUP',
    'RESTORE',
    'AGENT',
    'SETTINGS',
    'STORAGE',
    'KB',
    DEAD_LETTER_STREAM,
  ]) {
    const { config } = await jsm.streams.info(name);
    expect({ name, age: config.max_age > 0, bytes: config.max_bytes > 0 }).toEqual({
      name,
      age: true,
      bytes: true,
    });
  }
});

it('gives every durable consumer a max_deliver, and lists exactly the consumers the services create', async () => {
  const live: Array<{ stream: string; durable: string; subjects: string[] }> = [];
  for (const stream of ['AUTH', 'BACKUP', 'RESTORE', 'AGENT', 'SETTINGS', 'STORAGE', 'KB']) {
    for await (const c of jsm.consumers.list(stream)) {
      if (!c.config.durable_name || c.config.durable_name.startsWith('test-')) continue;
      expect({ durable: c.config.durable_name, maxDeliver: c.config.max_deliver }).toEqual({
        durable: c.config.durable_name,
        maxDeliver: 12,
      });
      const subjects = c.config.filter_subjects ?? (c.config.filter_subject ? [c.config.filter_subject] : []);
      live.push({ stream, durable: c.config.durable_name, subjects: [...subjects].sort() });
    }
  }
  const key = (e: { stream: string; durable: string }) => `${e.stream}/${e.durable}`;
  const catalogue = EVENT_CONSUMERS.map((e) => ({
    stream: e.stream,
    durable: e.durable,
    subjects: [...e.subjects].sort(),
  }));
  expect(live.sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
    catalogue.sort((a, b) => key(a).localeCompare(key(b))),
  );
});

it("moves a malformed event to the dead letters at once, and audit's metric counts it", async () => {
  const before = await deadLetterCount('AUTH', 'audit', 'MSG_TERMINATED');
  // auth.user.email_changed without its email (only audit consumes it): no try could succeed.
  const poison = {
    id: randomUUID(),
    subject: 'auth.user.email_changed',
    occurredAt: new Date().toISOString(),
    data: { userId: 'u1' },
  };
  const ack = await jetstream(nc).publish('auth.user.email_changed', JSON.stringify(poison), {
    msgID: poison.id,
  });
  await eventually(async () => {
    expect(await deadLetterCount('AUTH', 'audit', 'MSG_TERMINATED')).toBe(before + 1);
  }, 30_000);
  // The advisory names the event's place in its stream, where it can be viewed and replayed.
  const last = await jsm.streams.getMessage(DEAD_LETTER_STREAM, {
    last_by_subj: deadLetterSubject('AUTH', 'audit', 'MSG_TERMINATED'),
  });
  const advisory = last!.json<{ stream: string; consumer: string; stream_seq: number; reason?: string }>();
  expect(advisory).toMatchObject({ stream: 'AUTH', consumer: 'audit', stream_seq: ack.seq });
  expect(advisory.reason).toMatch(/^malformed: /);
  const stored = await jsm.streams.getMessage('AUTH', { seq: advisory.stream_seq });
  expect(stored!.json()).toEqual(poison);
  // Not retried: nothing of it waits for a redelivery.
  const consumer = await jsm.consumers.info('AUTH', 'audit');
  expect(consumer.num_ack_pending).toBe(0);
  const metrics = await (await fetch(`http://127.0.0.1:${opsPortOf('audit')}/metrics`)).text();
  expect(
    sample(metrics, 'coffer_nats_dead_letters', { stream: 'AUTH', consumer: 'audit', reason: 'malformed' }),
  ).toBe(before + 1);
});

describe('an event whose handler always fails', () => {
  let bus: EventBus;
  const durable = `test-poison-${randomUUID().slice(0, 8)}`;
  afterAll(async () => {
    await bus?.close();
    await jsm.consumers.delete('KB', durable).catch(() => undefined);
  });

  it('is tried max_deliver times, then lands in the dead letters, counted by the consumer process', async () => {
    bus = await connectEventBus({
      url: process.env.COFFER_NATS_URL!,
      name: 'dead-letters-test',
      log,
      streams: ['KB'],
    });
    const slug = `poison-${randomUUID()}`;
    let tries = 0;
    await bus.consume({
      stream: 'KB',
      durable,
      subjects: ['kb.article.created'],
      retry: { maxDeliver: 3, firstDelayMs: 100, maxDelayMs: 100 },
      handler: async (event) => {
        if (event.data.slug !== slug) return;
        tries++;
        throw new Error('always fails');
      },
    });
    await bus.publish('kb.article.created', {
      userId: 'a'.repeat(24),
      articleId: 'b'.repeat(24),
      title: 'Poison',
      slug,
    });
    await eventually(async () => {
      expect(await deadLetterCount('KB', durable, 'MAX_DELIVERIES')).toBe(1);
    }, 30_000);
    expect(tries).toBe(3);
    const text = await metricsRegistry.metrics();
    expect(
      sample(text, 'coffer_nats_dead_letters', { stream: 'KB', consumer: durable, reason: 'max_deliveries' }),
    ).toBe(1);
    await jsm.streams.purge(DEAD_LETTER_STREAM, { filter: deadLetterSubject('KB', durable) });
    expect(await deadLetterCount('KB', durable, 'MAX_DELIVERIES')).toBe(0);
  });
});
