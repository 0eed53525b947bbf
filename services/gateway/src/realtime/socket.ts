import type http from 'node:http';
import { Server } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Logger, RedisClient } from '@coffer/common';
import { SOCKET_IO_PATH, type BrowserToServerEvents, type ServerToBrowserEvents } from '@coffer/contracts';
import type { Identity } from '../http/identity.js';

export const userRoom = (userId: string) => `user:${userId}`;

/** What the gateway keeps on a browser's socket. */
export interface BrowserSocketData {
  userId: string;
}

/** The Socket.IO server, typed by the browser edge's contract. */
export type RealtimeServer = Server<
  BrowserToServerEvents,
  ServerToBrowserEvents,
  Record<string, never>,
  BrowserSocketData
>;

/**
 * Socket.IO for browsers at /api/socket.io. A browser authenticates with its session token and
 * joins its owner's room; the Redis adapter makes a room emit reach sockets on every gateway.
 */
export async function startRealtime(deps: {
  server: http.Server;
  redis: RedisClient;
  identity: Identity;
  log: Logger;
}): Promise<RealtimeServer> {
  const pub = deps.redis.duplicate();
  const sub = deps.redis.duplicate();
  pub.on('error', () => undefined);
  sub.on('error', () => undefined);
  await Promise.all([pub.connect(), sub.connect()]);
  const io: RealtimeServer = new Server(deps.server, {
    path: SOCKET_IO_PATH,
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
    void socket.join(userRoom(socket.data.userId));
  });
  return io;
}
