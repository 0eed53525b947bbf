import { limitReached, type RedisClient } from '@coffer/common';

/**
 * Fixed-window counters in Redis, shared by every gateway replica. `hit` counts one attempt
 * against each key and refuses with 429 once any key is over its limit.
 */
export function rateLimiter(redis: Pick<RedisClient, 'multi'>, windowSeconds: number) {
  return async function hit(checks: Array<{ key: string; limit: number }>, message: string): Promise<void> {
    const window = Math.floor(Date.now() / 1000 / windowSeconds);
    for (const { key, limit } of checks) {
      const k = `coffer:rate:${key}:${window}`;
      const [count] = (await redis.multi().incr(k).expire(k, windowSeconds, 'NX').exec()) as unknown as [
        number,
      ];
      if (count > limit) {
        const retryAfter = (window + 1) * windowSeconds - Math.floor(Date.now() / 1000);
        throw limitReached(message, 'RATE_LIMITED', { retryAfter });
      }
    }
  };
}
export type RateLimiter = ReturnType<typeof rateLimiter>;
