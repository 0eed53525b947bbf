import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { auth, common } from '@coffer/proto';
import { startNats, type RunningServer } from '@coffer/local-stack';
import { notFound } from '../errors';
import { grpcClient } from '../grpc/client';
import { serviceIdentities } from '../grpc/service-keys';
import { capturedLogger } from '../testing/captured-logger';
import { startGrpcServer, unaryHandlers, type AsyncUnaryHandlers, type GrpcServer } from '../grpc/server';
import { connectEventBus, type EventBus } from '../nats/bus';
import { currentRequestId, runInRequest } from './context';
import { metricsRegistry } from './metrics';

// A real NATS and a real gRPC server and client in this process: the request id travels from a
// caller through gRPC metadata into the handler, and from there through NATS headers into a consumer.

const { log, lines } = capturedLogger('propagation-test');

let tmp: string;
let nats: RunningServer;
let bus: EventBus;
let server: GrpcServer;
let client: ReturnType<typeof grpcClient<auth.AuthServiceClient>>;
const consumed: Array<{ subject: string; requestId: string | undefined }> = [];

async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}`);
}

/** One sample's value from the process registry's exposition. */
async function sample(name: string, labels: Record<string, string>): Promise<number | undefined> {
  for (const line of (await metricsRegistry.metrics()).split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.split(' ').pop());
  }
  return undefined;
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-propagation-test-'));
  nats = await startNats({ dataDir: tmp });
  bus = await connectEventBus({ url: nats.url, name: 'propagation-test', log, streams: ['AUTH'] });
  const handlers = {
    getAccountState: async (req: common.UserRef) => {
      log.info('handling the call');
      if (req.userId === 'missing') throw notFound('No such user');
      await bus.publish('auth.user.api_key_regenerated', { userId: req.userId });
      return auth.AccountState.fromPartial({ userId: req.userId, role: auth.Role.ROLE_USER });
    },
  } as unknown as AsyncUnaryHandlers<auth.AuthServiceServer>;
  const ids = serviceIdentities(['auth', 'gateway']);
  server = await startGrpcServer(
    '127.0.0.1:0',
    [{ definition: auth.AuthServiceService, impl: unaryHandlers<auth.AuthServiceServer>(log, handlers) }],
    { identity: ids.auth, log },
  );
  client = grpcClient(auth.AuthServiceClient, `127.0.0.1:${server.port}`, {
    identity: ids.gateway,
    callee: 'auth',
  });
  await bus.consume({
    stream: 'AUTH',
    durable: 'propagation-test',
    subjects: ['auth.user.api_key_regenerated'],
    handler: async (event) => {
      consumed.push({ subject: event.subject, requestId: currentRequestId() });
      log.info({ eventId: event.id }, 'consumed the event');
    },
  });
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
  await bus?.close();
  await nats?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

it('carries the request id from the caller through gRPC into the handler and through NATS into the consumer', async () => {
  await runInRequest({ requestId: 'prop-abc123' }, () => client.getAccountState({ userId: 'u-1' }));
  await until('the event is consumed', () => consumed.length === 1);
  expect(consumed[0]).toEqual({ subject: 'auth.user.api_key_regenerated', requestId: 'prop-abc123' });
  const handled = lines.find((l) => l.msg === 'handling the call');
  const logged = lines.find((l) => l.msg === 'consumed the event');
  expect(handled?.requestId).toBe('prop-abc123');
  expect(logged?.requestId).toBe('prop-abc123');
});

it('gives work that arrives without an id one of its own', async () => {
  consumed.length = 0;
  await client.getAccountState({ userId: 'u-2' });
  await bus.publish('auth.user.api_key_regenerated', { userId: 'u-3' });
  await until('both events are consumed', () => consumed.length === 2);
  const [fromCall, fromTimer] = consumed.map((c) => c.requestId);
  expect(fromCall).toMatch(/^[0-9a-f-]{36}$/);
  expect(fromTimer).toMatch(/^[0-9a-f-]{36}$/);
  expect(fromCall).not.toBe(fromTimer);
});

it('times calls on both sides by method and status code', async () => {
  const labels = { grpc_service: 'coffer.auth.v1.AuthService', grpc_method: 'GetAccountState' };
  const before = {
    server: (await sample('grpc_server_handling_seconds_count', { ...labels, grpc_code: 'NOT_FOUND' })) ?? 0,
    client: (await sample('grpc_client_handling_seconds_count', { ...labels, grpc_code: 'NOT_FOUND' })) ?? 0,
  };
  await expect(client.getAccountState({ userId: 'missing' })).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  expect(await sample('grpc_server_handling_seconds_count', { ...labels, grpc_code: 'NOT_FOUND' })).toBe(
    before.server + 1,
  );
  expect(await sample('grpc_client_handling_seconds_count', { ...labels, grpc_code: 'NOT_FOUND' })).toBe(
    before.client + 1,
  );
  expect(
    await sample('grpc_server_handling_seconds_count', { ...labels, grpc_code: 'OK' }),
  ).toBeGreaterThanOrEqual(2);
});

it('reports a consumer’s unacknowledged messages from JetStream at scrape time', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const consumption = await bus.consume({
    stream: 'AUTH',
    durable: 'propagation-lag',
    subjects: ['auth.user.plan_changed'],
    handler: () => gate,
  });
  const lag = { stream: 'AUTH', consumer: 'propagation-lag' };
  try {
    for (const planId of ['p1', 'p2', 'p3']) {
      await bus.publish('auth.user.plan_changed', { userId: 'u-1', planId, planName: planId });
    }
    // The first handler waits on the gate, so all three stay delivered and unacknowledged.
    await until(
      'three messages wait for their ack',
      async () => (await sample('nats_consumer_ack_pending_messages', lag)) === 3,
    );
    expect(await sample('nats_consumer_pending_messages', lag)).toBe(0);
    release();
    await until(
      'the consumer caught up',
      async () => (await sample('nats_consumer_ack_pending_messages', lag)) === 0,
    );
  } finally {
    release();
    await consumption.stop();
  }
  // A stopped consumer is no longer sampled.
  expect(await sample('nats_consumer_pending_messages', lag)).toBeUndefined();
});
