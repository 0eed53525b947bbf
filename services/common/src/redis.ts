import { createClient } from 'redis';

export type RedisClient = ReturnType<typeof createClient>;

/** Connects to Redis; used for rate limits, short-lived locks and the Socket.IO adapter. */
export async function connectRedis(url: string): Promise<RedisClient> {
  const client = createClient({ url, socket: { reconnectStrategy: (n) => Math.min(n * 200, 5000) } });
  client.on('error', () => {
    // reconnects on its own; readiness reports the outage
  });
  await client.connect();
  return client;
}
