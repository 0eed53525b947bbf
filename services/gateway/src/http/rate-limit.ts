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
  /**
   * Counts one attempt against every key (refusing with 429 once one is over its limit) and
   * returns `refund`, which takes the attempt back: sign-in calls it when the password was right,
   * so only failures count and an office behind one address is not locked out by its own users.
   * Counting first and refunding after (rather than counting failures afterwards) keeps a burst of
   * parallel guesses bounded: each one is counted before it reaches the password check.
   */
  return async function hit(
    checks: Array<{ key: string; limit: number }>,
    message: string,
  ): Promise<{ refund: () => Promise<void> }> {
    const t = now() / 1000;
    const window = Math.floor(t / windowSeconds);
    const elapsed = (t - window * windowSeconds) / windowSeconds;
    const counted: string[] = [];
    for (const { key, limit } of checks) {
      const k = `coffer:rate:${key}:${window}`;
      const previousKey = `coffer:rate:${key}:${window - 1}`;
      // Refunds are counted apart (`…:ok`) and subtracted, with the commands the gateway's Redis
      // user already has (INCR, not DECR).
      const [count, , refunded, previous, previousRefunded] = (await redis
        .multi()
        .incr(k)
        // Kept through the next window, where it is the "previous" count.
        .expire(k, 2 * windowSeconds, 'NX')
        .get(`${k}:ok`)
        .get(previousKey)
        .get(`${previousKey}:ok`)
        .exec()) as unknown as [number, number, string | null, string | null, string | null];
      counted.push(k);
      const current = count - Number(refunded ?? 0);
      const before = Math.max(0, Number(previous ?? 0) - Number(previousRefunded ?? 0));
      const estimate = before * (1 - elapsed) + current;
      if (estimate > limit) {
        throw limitReached(message, 'RATE_LIMITED', {
          retryAfter: retryAfterSeconds(before, current, limit, elapsed, windowSeconds),
        });
      }
    }
    return {
      async refund() {
        const m = redis.multi();
        for (const k of counted) m.incr(`${k}:ok`).expire(`${k}:ok`, 2 * windowSeconds, 'NX');
        await m.exec();
      },
    };
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
