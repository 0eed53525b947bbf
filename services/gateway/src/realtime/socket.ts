import type http from 'node:http';
import { Server } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Logger, RedisClient } from '@coffer/common';
import { SOCKET_IO_PATH, type BrowserToServerEvents, type ServerToBrowserEvents } from '@coffer/contracts';
import type { Session } from '@coffer/common';
import type { Identity } from '../http/identity.js';

export const userRoom = (userId: string) => `user:${userId}`;
/** The sockets of one sign-in (its token's `sid`), closed when it signs out. */
export const sessionRoom = (sessionId: string) => `session:${sessionId}`;

const MAX_TIMER_MS = 2 ** 31 - 1;

/** What the gateway keeps on a browser's socket. */
export interface BrowserSocketData {
  userId: string;
  session: Session;
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
 * A socket lives no longer than its session: it is closed when its token expires, and when the
 * session ends otherwise (realtime/sessions.ts).
 */
export async function startRealtime(deps: {
  server: http.Server;
  redis: RedisClient;
  identity: Identity;
  log: Logger;
  /** How long a connection may take to join a namespace before Socket.IO closes it. */
  connectTimeoutMs: number;
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
    connectTimeout: deps.connectTimeoutMs,
  });
  io.use((socket, next) => {
    const token = (socket.handshake.auth as { token?: unknown }).token;
    // Fresh from auth, not the cache: a socket opened on a stale cache would outlive the change.
    deps.identity
      .fromToken(typeof token === 'string' ? token : undefined, { fresh: true })
      .then((caller) => {
        socket.data = { userId: caller.id, session: caller.session! };
        next();
      })
      .catch((err: Error) => next(new Error(err.message)));
  });
  io.on('connection', (socket) => {
    const { userId, session } = socket.data;
    void socket.join([userRoom(userId), sessionRoom(session.id)]);
    // A timer waits at most MAX_TIMER_MS (longer ones fire at once): a longer-lived token re-arms it.
    let expiry: NodeJS.Timeout | undefined;
    const closeWhenExpired = () => {
      const left = session.expiresAt - Date.now();
      if (left <= 0) socket.disconnect(true);
      else expiry = setTimeout(closeWhenExpired, Math.min(left, MAX_TIMER_MS));
    };
    closeWhenExpired();
    socket.on('disconnect', () => clearTimeout(expiry));
  });
  return io;
}
