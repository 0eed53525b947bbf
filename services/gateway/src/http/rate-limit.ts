import { limitReached, type RedisClient } from '@coffer/common';

/**
 * Sliding-window counters in Redis, shared by every gateway replica. Each key keeps a count for the
 * current fixed window and the one before it; the estimate weighs the previous count by how much of
 * it still lies inside the sliding window (`previous × (1 − elapsed) + current`). Unlike plain fixed
 * windows, a burst at the end of one window and another at the start of the next cannot pass twice
 * the limit. `hit` counts one attempt against each key and refuses with 429 once any key is over
 * its limit; a refused attempt counts too, so hammering on keeps the caller out.
 */
export function rateLimiter(
  redis: Pick<RedisClient, 'multi'>,
  windowSeconds: number,
  now: () => number = Date.now,
) {
  return async function hit(checks: Array<{ key: string; limit: number }>, message: string): Promise<void> {
    const t = now() / 1000;
    const window = Math.floor(t / windowSeconds);
    const elapsed = (t - window * windowSeconds) / windowSeconds;
    for (const { key, limit } of checks) {
      const k = `coffer:rate:${key}:${window}`;
      const previousKey = `coffer:rate:${key}:${window - 1}`;
      const [count, , previous] = (await redis
        .multi()
        .incr(k)
        // Kept through the next window, where it is the "previous" count.
        .expire(k, 2 * windowSeconds, 'NX')
        .get(previousKey)
        .exec()) as unknown as [number, number, string | null];
      const before = Number(previous ?? 0);
      const estimate = before * (1 - elapsed) + count;
      if (estimate > limit) {
        throw limitReached(message, 'RATE_LIMITED', {
          retryAfter: retryAfterSeconds(before, count, limit, elapsed, windowSeconds),
        });
      }
    }
  };
}
export type RateLimiter = ReturnType<typeof rateLimiter>;

/** Seconds until the estimate is back within the limit, if nothing more is counted. */
function retryAfterSeconds(previous: number, count: number, limit: number, elapsed: number, w: number) {
  // Within this window the estimate falls as the previous window slides out of it...
  if (count <= limit && previous > 0)
    return Math.max(1, Math.ceil((1 - (limit - count) / previous - elapsed) * w));
  // ...otherwise this window's count must slide out during the next one.
  return Math.max(1, Math.ceil((1 - elapsed) * w + (1 - limit / count) * w));
}
