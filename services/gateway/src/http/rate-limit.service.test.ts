// Runs against a real Redis (the kit starts one): the limiter's arithmetic lives in its MULTI.
import { AppError, connectRedis, type RedisClient } from '@coffer/common';
import { serverUsers, startRedis, urlWithUser, type RunningServer } from '@coffer/local-stack';
import { rateLimiter } from './rate-limit';

jest.setTimeout(60_000);

const WINDOW = 60;
let server: RunningServer;
let redis: RedisClient;
let seq = 0;

beforeAll(async () => {
  // As the gateway's own Redis user, so the limiter only uses commands that user is granted.
  const users = serverUsers(['gateway']);
  server = await startRedis({ users });
  redis = await connectRedis(urlWithUser(server.url, users[0]!));
});
afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

/** A limiter on its own key with a settable clock (seconds since the epoch, window-aligned at 0). */
function limiter(limit: number) {
  let t = 1_000 * WINDOW;
  const hit = rateLimiter(redis, WINDOW, () => t * 1000);
  const key = `test:${process.pid}:${++seq}`;
  return {
    at: (seconds: number) => (t = 1_000 * WINDOW + seconds),
    /** How many of `n` attempts pass now. */
    async passes(n: number) {
      let ok = 0;
      for (let i = 0; i < n; i++) {
        try {
          await hit([{ key, limit }], 'Too many');
          ok++;
        } catch (err) {
          if (!(err instanceof AppError) || err.kind !== 'LIMIT_REACHED') throw err;
        }
      }
      return ok;
    },
  };
}

describe('rate limiter (sliding window)', () => {
  it('lets the limit through and refuses the next attempt with a retry time', async () => {
    const l = limiter(5);
    l.at(10);
    await expect(l.passes(5)).resolves.toBe(5);
    const hit = rateLimiter(redis, WINDOW, () => (1_000 * WINDOW + 10) * 1000);
    const err = await hit([{ key: `test:${process.pid}:${seq}`, limit: 5 }], 'Too many').catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ kind: 'LIMIT_REACHED', message: 'Too many' });
    expect((err as AppError).details).toMatchObject({ retryAfter: expect.any(Number) });
    expect(((err as AppError).details as { retryAfter: number }).retryAfter).toBeGreaterThan(0);
  });

  it('takes a refunded attempt back: only the attempts not refunded count', async () => {
    const hit = rateLimiter(redis, WINDOW, () => (1_000 * WINDOW + 5) * 1000);
    const key = `test:${process.pid}:${++seq}`;
    for (let i = 0; i < 20; i++) await (await hit([{ key, limit: 3 }], 'Too many')).refund();
    for (let i = 0; i < 3; i++) await hit([{ key, limit: 3 }], 'Too many');
    await expect(hit([{ key, limit: 3 }], 'Too many')).rejects.toMatchObject({ kind: 'LIMIT_REACHED' });
  });

  it('does not let twice the limit through across a window boundary', async () => {
    const l = limiter(10);
    l.at(WINDOW - 1); // the last second of one window
    await expect(l.passes(10)).resolves.toBe(10);
    l.at(WINDOW + 1); // the first seconds of the next: the previous burst still counts
    await expect(l.passes(10)).resolves.toBe(0);
  });

  it('lets attempts through again as the previous window slides out', async () => {
    const l = limiter(10);
    l.at(0);
    await expect(l.passes(10)).resolves.toBe(10);
    // Half-way through the next window half of the previous count still weighs in.
    l.at(WINDOW + WINDOW / 2);
    await expect(l.passes(10)).resolves.toBe(5);
    // Two windows later it is all gone.
    l.at(3 * WINDOW);
    await expect(l.passes(10)).resolves.toBe(10);
  });
});
