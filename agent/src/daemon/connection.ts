// The daemon's one Socket.IO connection to the gateway (namespace /agents): opened with the
// handshake of the moment, kept open by socket.io's own reconnects, and re-opened by us when the
// server refused it or closed it on purpose (which socket.io treats as final).
import {
  AGENT_NAMESPACE,
  SOCKET_IO_PATH,
  refusalCodeOf,
  type AgentHandshake,
  type AgentToGatewayEvents,
  type GatewayToAgentEvents,
} from '@coffer/contracts';
import type http from 'node:http';
import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import { Backoff } from './backoff.js';
import type { Logger } from './log.js';
import { refusalHandling } from './refusals.js';
import type { ConnectionStatus } from './status-file.js';

export type AgentSocket = Socket<GatewayToAgentEvents, AgentToGatewayEvents>;
export type SocketFactory = (url: string, opts: Partial<ManagerOptions & SocketOptions>) => AgentSocket;

/** The server as shown in logs and the status file: no user info, no path. */
export function displayServer(server: string): string {
  try {
    return new URL(server).origin;
  } catch {
    return '(invalid URL)';
  }
}

export interface ConnectionDeps {
  server: string;
  /** Read at every (re)connect, so a renewed instance id or a changed database list goes along. */
  handshake: () => AgentHandshake;
  log: Logger;
  status: ConnectionStatus;
  /** Removes secrets from text that reaches the log or the status file. */
  scrub: (text: string) => string;
  /** Retry interval after the server refused the API key or the account. */
  authRetryMs: number;
  stopping: () => boolean;
  /** A new instance id, after the server refused the old one (AGENT_RESET). */
  renewIdentity: () => Promise<void>;
  /** The connection dropped (for whatever reason). */
  onDisconnect: () => void;
  backoff?: Backoff;
  createSocket?: SocketFactory;
  /** For the WebSocket: the proxy's tunnelling agent when there is a proxy (runtime/network.ts). */
  agent?: http.Agent;
}

export interface Connection {
  socket: AgentSocket;
  connect(): void;
  /** The server registered the agent: the next trouble starts the backoff from its first step. */
  registered(): void;
  /** Drops the connection and opens it again at once (with a fresh handshake) unless stopping. */
  reconnectNow(): void;
  close(): void;
}

export function createConnection(deps: ConnectionDeps): Connection {
  const { log, status } = deps;
  const backoff = deps.backoff ?? new Backoff();
  const createSocket: SocketFactory = deps.createSocket ?? ((url, opts) => io(url, opts));
  const shown = displayServer(deps.server);
  let reconnectTimer: NodeJS.Timeout | undefined;

  const socket = createSocket(`${new URL(deps.server).origin}${AGENT_NAMESPACE}`, {
    path: SOCKET_IO_PATH,
    transports: ['websocket'],
    forceNew: true,
    autoConnect: false,
    reconnection: true,
    reconnectionAttempts: Infinity,
    reconnectionDelay: 1000,
    reconnectionDelayMax: 30_000,
    randomizationFactor: 0.5,
    timeout: 20_000,
    // engine.io-client hands it to ws; its type says string | boolean, from the browser's options.
    ...(deps.agent ? { agent: deps.agent as unknown as string } : {}),
    auth: (cb) => cb(deps.handshake()),
  });

  const scheduleReconnect = (delayMs: number) => {
    if (deps.stopping() || reconnectTimer) return;
    log.info('reconnecting later', { inSeconds: Math.round(delayMs / 100) / 10 });
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      if (!deps.stopping() && !socket.connected) socket.connect();
    }, delayMs);
  };

  socket.on('connect', () => {
    log.info('connected', { server: shown });
    status.connected();
  });

  socket.on('disconnect', (reason) => {
    deps.onDisconnect();
    status.disconnected();
    if (deps.stopping()) return;
    log.warn('disconnected', { reason });
    // The server closed the connection on purpose: socket.io does not come back by itself.
    if (reason === 'io server disconnect') scheduleReconnect(backoff.next());
  });

  socket.on('connect_error', (err: Error) => {
    if (deps.stopping()) return;
    const message = deps.scrub(err.message || 'connection failed');
    const handling = refusalHandling(refusalCodeOf(err), shown);
    if (handling.action === 'renew-identity') {
      // Reset while this agent was away: its old identity is retired, so it registers as a new one.
      log.warn('the connection of this agent was reset from the dashboard; registering as a new agent');
      void deps.renewIdentity().then(
        () => scheduleReconnect(0),
        (e: unknown) => log.error('could not save a new instance id', { err: e }),
      );
      return;
    }
    // The advice goes into the status file too, so `coffer-agent status` says what to run.
    const advice = handling.action === 'retry-slowly' ? `. ${handling.advice}` : '';
    status.failed(`Cannot connect to ${shown}: ${message}${advice}`);
    if (handling.action === 'retry-slowly') {
      log.error('the server refused the connection', { error: message, advice: handling.advice });
    } else {
      log.warn('cannot connect', { server: shown, error: message });
    }
    // Refusals by the server (bad key, registration failure) are final for socket.io: retry ourselves.
    if (!socket.active)
      scheduleReconnect(handling.action === 'retry-slowly' ? deps.authRetryMs : backoff.next());
  });

  return {
    socket,
    connect: () => socket.connect(),
    registered: () => backoff.reset(),
    reconnectNow() {
      if (reconnectTimer) clearTimeout(reconnectTimer);
      reconnectTimer = undefined;
      backoff.reset();
      socket.disconnect();
      if (!deps.stopping()) socket.connect();
    },
    close() {
      if (reconnectTimer) clearTimeout(reconnectTimer);
      socket.close();
    },
  };
}
