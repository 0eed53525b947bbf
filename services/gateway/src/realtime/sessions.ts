import type { Identity } from '../http/identity.js';
import { sessionRoom, userRoom, type RealtimeServer } from './socket.js';

/**
 * Closes browsers' sockets whose session has ended, on every gateway (through the Redis adapter).
 * A closed browser does not reconnect by itself, and a reconnect with the ended session's token is
 * refused at the handshake.
 */
export interface BrowserSockets {
  /** The sockets of one session (signed out). */
  closeSession(sessionId: string): void;
  /** Every socket of the user (the account is being deleted). */
  closeAll(userId: string): void;
  /**
   * The user's sockets whose session the account, read fresh from auth, no longer admits (a
   * password change or reset, a ban, an inactivation); the others stay. Answers how many closed.
   */
  closeEnded(userId: string): Promise<number>;
}

export const browserSockets = (deps: {
  /** The Socket.IO server (it starts after the routes; until then nothing is open to close). */
  io: () => RealtimeServer | undefined;
  identity: Pick<Identity, 'sessionTest'>;
}): BrowserSockets => ({
  closeSession: (sessionId) => deps.io()?.in(sessionRoom(sessionId)).disconnectSockets(true),
  closeAll: (userId) => deps.io()?.in(userRoom(userId)).disconnectSockets(true),
  async closeEnded(userId) {
    const io = deps.io();
    if (!io) return 0;
    const admits = await deps.identity.sessionTest(userId);
    const ended = (await io.in(userRoom(userId)).fetchSockets()).filter((s) => !admits(s.data.session));
    for (const s of ended) s.disconnect(true);
    return ended.length;
  },
});
