import type http from 'node:http';
import { Server } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Logger, RedisClient } from '@coffer/common';
import type { Identity } from '../http/identity.js';
import type { ServerToBrowserEvents } from './events.js';

export const userRoom = (userId: string) => `user:${userId}`;

/**
 * Socket.IO for browsers at /api/socket.io. A browser authenticates with its session token and
 * joins its owner's room; the Redis adapter makes a room emit reach sockets on every gateway.
 */
export async function startRealtime(deps: {
  server: http.Server;
  redis: RedisClient;
  identity: Identity;
  log: Logger;
}): Promise<Server<Record<string, never>, ServerToBrowserEvents>> {
  const pub = deps.redis.duplicate();
  const sub = deps.redis.duplicate();
  pub.on('error', () => undefined);
  sub.on('error', () => undefined);
  await Promise.all([pub.connect(), sub.connect()]);
  const io = new Server<Record<string, never>, ServerToBrowserEvents>(deps.server, {
    path: '/api/socket.io',
    serveClient: false,
    adapter: createAdapter(pub, sub),
  });
  io.use((socket, next) => {
    const token = (socket.handshake.auth as { token?: unknown }).token;
    deps.identity
      .fromToken(typeof token === 'string' ? token : undefined)
      .then((caller) => {
        socket.data.userId = caller.id;
        next();
      })
      .catch((err: Error) => next(new Error(err.message)));
  });
  io.on('connection', (socket) => {
    void socket.join(userRoom(socket.data.userId as string));
  });
  return io;
}
