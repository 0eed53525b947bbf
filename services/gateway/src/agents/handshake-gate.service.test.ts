// Runs against a real Redis (the kit starts one): the per-minute rates are shared through it.
import { randomBytes } from 'node:crypto';
import { connectRedis, type RedisClient } from '@coffer/common';
import { startRedis, type RunningServer } from '@coffer/local-stack';
import { rateLimiter } from '../http/rate-limit';
import {
  HANDSHAKE_BUSY_MESSAGE,
  HANDSHAKE_GONE_MESSAGE,
  HANDSHAKE_RATE_MESSAGE,
  HANDSHAKE_TIMEOUT_MESSAGE,
  handshakeGate,
  type HandshakeLimits,
} from './handshake-gate';

jest.setTimeout(60_000);

let server: RunningServer;
let redis: RedisClient;

beforeAll(async () => {
  server = await startRedis();
  redis = await connectRedis(server.url);
});
afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

const key = () => `cof_${randomBytes(16).toString('hex')}`;
let addresses = 0;
const address = () => `10.7.${Math.floor(++addresses / 250)}.${addresses % 250}`;
const gate = (over: Partial<HandshakeLimits> = {}) =>
  handshakeGate({
    rateLimit: rateLimiter(redis, 60),
    limits: {
      concurrentTotal: 100,
      maxWaiting: 1000,
      concurrentPerKey: 2,
      concurrentPerAddress: 2,
      perKeyPerMinute: 1000,
      perAddressPerMinute: 1000,
      ...over,
    },
  });
const soon = () => ({ waitUntil: Date.now() + 30_000 });
/** Whether the promise has settled after a moment (used only to show a handshake still waits). */
const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setTimeout(r, 20));
  return done;
};

describe('agent handshake gate', () => {
  it('works on a few handshakes of one key at once; the others wait their turn, in order', async () => {
    const g = gate();
    const k = key();
    const first = await Promise.all([g.admit(k, address(), soon()), g.admit(k, address(), soon())]);
    const third = g.admit(k, address(), soon());
    const fourth = g.admit(k, address(), soon());
    expect(await settled(third)).toBe(false);
    first[0]();
    first[0](); // ending twice frees one turn only
    const end3 = await third;
    expect(await settled(fourth)).toBe(false);
    first[1]();
    (await fourth)();
    end3();
  });

  it('does not hold up other keys while one key floods', async () => {
    const g = gate();
    const flooding = key();
    const ends = await Promise.all([
      g.admit(flooding, address(), soon()),
      g.admit(flooding, address(), soon()),
    ]);
    const queued = Array.from({ length: 10 }, () => g.admit(flooding, address(), soon()));
    // Admitted while the flooding key's turns are all still held: were it queued behind them, it
    // would wait out its deadline and be refused (no timing is assumed: Redis answers when it can).
    (await g.admit(key(), address(), soon()))();
    for (const end of ends) end();
    for (const q of queued) (await q)();
  });

  it('bounds one address the same way, whatever keys it sends', async () => {
    const g = gate();
    const from = address();
    const ends = await Promise.all([g.admit(key(), from, soon()), g.admit(key(), from, soon())]);
    const third = g.admit(key(), from, soon());
    expect(await settled(third)).toBe(false);
    ends[0]!();
    (await third)();
    ends[1]!();
  });

  it('refuses at once past the waiting bound, and a wait that outlasts the deadline', async () => {
    const g = gate({ concurrentPerAddress: 1000 });
    const k = key();
    const ends = await Promise.all([g.admit(k, address(), soon()), g.admit(k, address(), soon())]);
    const queued = Array.from({ length: 50 }, () => g.admit(k, address(), soon()));
    await expect(g.admit(k, address(), soon())).rejects.toMatchObject({
      kind: 'LIMIT_REACHED',
      message: HANDSHAKE_BUSY_MESSAGE,
    });
    for (const end of ends) end();
    for (const q of queued) (await q)();

    const other = key();
    const held = await Promise.all([g.admit(other, address(), soon()), g.admit(other, address(), soon())]);
    await expect(g.admit(other, address(), { waitUntil: Date.now() + 100 })).rejects.toMatchObject({
      kind: 'UNAVAILABLE',
      message: HANDSHAKE_TIMEOUT_MESSAGE,
    });
    // The one that gave up took no turn with it.
    for (const end of held) end();
    (await g.admit(other, address(), soon()))();
  });

  it('works on a bounded number of handshakes at once whatever their keys; the rest wait, past the per-key waiting bound', async () => {
    const g = gate({ concurrentTotal: 2 });
    const held = await Promise.all([g.admit(key(), address(), soon()), g.admit(key(), address(), soon())]);
    // A storm: many more than any per-key bound, each of its own key and address, all wait their turn.
    const waiting = Array.from({ length: 60 }, () => g.admit(key(), address(), soon()));
    expect(await settled(waiting[0]!)).toBe(false);
    held[0]!();
    const next = await waiting[0]!;
    expect(await settled(waiting[1]!)).toBe(false);
    next();
    held[1]!();
    for (const w of waiting.slice(1)) (await w)();
  });

  it('limits new handshakes per key and per address per minute, on all gateways together', async () => {
    const [a, b] = [gate({ perKeyPerMinute: 3 }), gate({ perKeyPerMinute: 3 })];
    const k = key();
    (await a.admit(k, address(), soon()))();
    (await b.admit(k, address(), soon()))();
    (await a.admit(k, address(), soon()))();
    await expect(b.admit(k, address(), soon())).rejects.toMatchObject({
      kind: 'LIMIT_REACHED',
      code: 'RATE_LIMITED',
      message: HANDSHAKE_RATE_MESSAGE,
    });
    const from = address();
    const byAddress = gate({ perAddressPerMinute: 2 });
    (await byAddress.admit(key(), from, soon()))();
    (await byAddress.admit(key(), from, soon()))();
    await expect(byAddress.admit(key(), from, soon())).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    // The keys are counted by a hash: no API key is written to Redis.
    expect((await redis.keys('coffer:rate:agent-handshake:*')).join(' ')).not.toContain(k);
  });
  it('lets an agent that went away while waiting give its place up', async () => {
    const g = gate();
    const k = key();
    const held = await Promise.all([g.admit(k, address(), soon()), g.admit(k, address(), soon())]);
    const closed = new AbortController();
    const leaving = g.admit(k, address(), { ...soon(), gone: closed.signal });
    const next = g.admit(k, address(), soon());
    closed.abort();
    await expect(leaving).rejects.toMatchObject({ kind: 'UNAVAILABLE', message: HANDSHAKE_GONE_MESSAGE });
    // The turn goes to the one behind it, not to the agent that left.
    held[0]!();
    (await next)();
    held[1]!();
  });

  it('counts only admitted handshakes against the rate: waiting spends none of it', async () => {
    const g = gate({ perKeyPerMinute: 3, concurrentPerKey: 1, concurrentPerAddress: 1 });
    const k = key();
    const first = await g.admit(k, address(), soon());
    // Three more wait behind the first; were arrivals counted, the fourth handshake would be refused.
    const waiting = [g.admit(k, address(), soon()), g.admit(k, address(), soon())];
    const timedOut = g.admit(k, address(), { waitUntil: Date.now() + 50 });
    await expect(timedOut).rejects.toMatchObject({ kind: 'UNAVAILABLE' });
    first();
    (await waiting[0]!)();
    (await waiting[1]!)();
    // Three admitted in this minute: the next is refused at its turn, and gives the turn back (its
    // address has one turn: another key from there would otherwise wait out its 30 s).
    const from = address();
    await expect(g.admit(k, from, soon())).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    (await g.admit(key(), from, soon()))();
  });
  it('refuses at once past the bound on waiting handshakes in all, whatever their keys', async () => {
    const g = gate({ concurrentTotal: 1, maxWaiting: 2 });
    const held = await g.admit(key(), address(), soon());
    const waiting = [g.admit(key(), address(), soon()), g.admit(key(), address(), soon())];
    await expect(g.admit(key(), address(), soon())).rejects.toMatchObject({
      kind: 'LIMIT_REACHED',
      message: HANDSHAKE_BUSY_MESSAGE,
    });
    held();
    for (const w of waiting) (await w)();
  });
});
