// One Socket.IO connection per signed-in session: opened after login (or at start-up with a valid
// saved session) and closed on logout. Subscribers register once and survive reconnects and
// re-logins because handlers live here, not on a particular socket. Failures are only logged.
// The events and their payloads are the browser edge's contract (@coffer/contracts, realtime.ts).
import { io, type Socket } from 'socket.io-client';
import {
  BROWSER_EVENTS,
  SOCKET_IO_PATH,
  type BrowserAuth,
  type BrowserEventName,
  type BrowserEventPayload,
  type BrowserToServerEvents,
  type ServerToBrowserEvents,
} from '@coffer/contracts';

type Handler<E extends BrowserEventName> = (payload: BrowserEventPayload<E>) => void;

let socket: Socket<ServerToBrowserEvents, BrowserToServerEvents> | null = null;
const handlers = new Map<BrowserEventName, Set<(payload: never) => void>>();

function dispatchEvent(event: BrowserEventName, payload: unknown): void {
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
  const auth: BrowserAuth = { token };
  const s: Socket<ServerToBrowserEvents, BrowserToServerEvents> = io(window.location.origin, {
    path: SOCKET_IO_PATH,
    auth,
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
  for (const event of BROWSER_EVENTS) {
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
export function onRealtime<E extends BrowserEventName>(event: E, handler: Handler<E>): () => void {
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
