// One Socket.IO connection per signed-in session: opened after login (or at start-up with a valid
// saved session) and closed on logout. Subscribers register once and survive reconnects and
// re-logins because handlers live here, not on a particular socket. Failures are only logged.
import { io, type Socket } from 'socket.io-client';
import {
  REALTIME_EVENTS,
  type ClientToServerEvents,
  type RealtimeEventName,
  type RealtimePayload,
  type ServerToClientEvents,
} from './events';

type Handler<E extends RealtimeEventName> = (payload: RealtimePayload<E>) => void;

let socket: Socket<ServerToClientEvents, ClientToServerEvents> | null = null;
const handlers = new Map<RealtimeEventName, Set<(payload: never) => void>>();

function dispatchEvent(event: RealtimeEventName, payload: unknown): void {
  handlers.get(event)?.forEach((h) => {
    try {
      (h as (p: unknown) => void)(payload);
    } catch (err) {
      console.error(`realtime ${event} handler failed`, err);
    }
  });
}

export function connectSocket(token: string): void {
  disconnectSocket();
  const s: Socket<ServerToClientEvents, ClientToServerEvents> = io(window.location.origin, {
    path: '/api/socket.io',
    auth: { token },
    reconnectionDelay: 1000,
    reconnectionDelayMax: 5000,
    randomizationFactor: 0.5,
    reconnectionAttempts: Infinity,
    timeout: 20000,
  });
  s.on('connect_error', (err) => console.warn('realtime connection failed:', err.message));
  s.on('disconnect', (reason) => {
    if (reason !== 'io client disconnect') console.warn('realtime disconnected:', reason);
  });
  for (const event of REALTIME_EVENTS) {
    // Cast: Socket.IO's typed `on` cannot take a union event name.
    (s as unknown as Socket).on(event, (payload: unknown) => dispatchEvent(event, payload));
  }
  socket = s;
}

export function disconnectSocket(): void {
  if (!socket) return;
  socket.removeAllListeners();
  socket.disconnect();
  socket = null;
}

export function isSocketConnected(): boolean {
  return socket?.connected ?? false;
}

/** Subscribe to a realtime event; returns the unsubscribe function. */
export function onRealtime<E extends RealtimeEventName>(event: E, handler: Handler<E>): () => void {
  let set = handlers.get(event);
  if (!set) {
    set = new Set();
    handlers.set(event, set);
  }
  set.add(handler as (payload: never) => void);
  return () => {
    set.delete(handler as (payload: never) => void);
  };
}
