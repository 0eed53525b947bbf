import type { IncomingMessage } from 'node:http';
import type { Namespace, Server } from 'socket.io';
import {
  AppError,
  agentsConnected,
  agentUpdateStatus,
  PROGRESS_SUBJECTS,
  type EventBus,
  type Logger,
} from '@coffer/common';
import {
  AGENT_NAMESPACE,
  agentEventSchemas,
  agentHandshakeSchema,
  connectRefusal,
  registrationOf,
  type AgentEventName,
  type AgentRegistration,
  type AgentToGatewayEvents,
  type GatewayToAgentEvents,
  type RegisteredMessage,
  type ReportAck,
  type ValidAgentEvent,
  type ValidAgentHandshake,
} from '@coffer/contracts';
import type { orchestrator as proto } from '@coffer/proto';
import type { Clients } from '../clients.js';
import type { Identity } from '../http/identity.js';
import type { AgentNews } from '../realtime/agent-news.js';
import type { HandshakeGate } from './handshake-gate.js';
import { refusalFor } from './refusals.js';

/** Handshake fields RegisterAgentRequest (orchestrator.proto) has no field for. */
type NotCarried = Exclude<keyof AgentRegistration, keyof proto.RegisterAgentRequest>;

/**
 * The registration travels whole: the orchestrator parses it with the same contracts schema. A
 * handshake field the proto lacks would be dropped on the wire without a word, so it fails to
 * compile here instead (`never` is the only value of a field not carried).
 */
const registerRequest = (
  userId: string,
  h: ValidAgentHandshake,
): proto.RegisterAgentRequest & Record<NotCarried, never> => ({ userId, ...registrationOf(h) });

/** What the gateway keeps on an agent's socket once it is registered. */
export interface AgentSocketData {
  userId: string;
  agentId: string;
  databases: RegisteredMessage['databases'];
  /** The database names the agent reported last (handshake, then heartbeats). */
  reported: string;
}

export type AgentNamespace = Namespace<
  AgentToGatewayEvents,
  GatewayToAgentEvents,
  Record<string, never>,
  AgentSocketData
>;

/** A list of database names as one comparable value (order and repeats do not matter). */
const namesKey = (names: readonly string[]) => [...new Set(names)].sort().join('\n');

export const agentRoom = (agentId: string) => `agent:${agentId}`;
/** Every socket of one user's agents, whichever gateway holds it (closed when the API key changes). */
export const agentsOfRoom = (userId: string) => `agents-of:${userId}`;

/** Closes agents' sockets on every gateway (through the Redis adapter); the agents may reconnect. */
export interface AgentSockets {
  /** The sockets of one agent (removed from the dashboard). */
  disconnectAgent(agentId: string): void;
  /** The sockets of all of a user's agents (their API key was replaced). */
  disconnectUser(userId: string): void;
}

export const agentSockets = (nsp: () => AgentNamespace | undefined): AgentSockets => ({
  disconnectAgent: (agentId) => nsp()?.in(agentRoom(agentId)).disconnectSockets(true),
  disconnectUser: (userId) => nsp()?.in(agentsOfRoom(userId)).disconnectSockets(true),
});

/**
 * The agents' Socket.IO namespace: authenticates with the owner's API key, registers the agent
 * with the orchestrator, joins it to its room (where any gateway can reach it through the Redis
 * adapter), and relays what it reports.
 */
export function startAgentNamespace(deps: {
  io: Server;
  identity: Identity;
  clients: Clients;
  bus: EventBus;
  log: Logger;
  /** Bounds handshakes per API key and per address (agents/handshake-gate.ts). */
  gate: HandshakeGate;
  /** The client's address of a handshake (TRUST_PROXY applies). */
  addressOf: (req: IncomingMessage) => string;
  /** How long a handshake may wait for its turn (AGENT_HANDSHAKE_WAIT_MS). */
  handshakeWaitMs: number;
  /** How long a registration may take once its turn came (AGENT_HANDSHAKE_TIMEOUT_MS). */
  handshakeTimeoutMs: number;
  /** Tells the owner's open dashboards what changed (realtime/agent-news.ts). */
  news: AgentNews;
}): AgentNamespace {
  const { orchestrator } = deps.clients;
  const nsp = deps.io.of(AGENT_NAMESPACE) as unknown as AgentNamespace;

  // A refusal carries a code in `data` (contracts: ConnectRefusalCode); the agent acts on it.
  nsp.use((socket, next) => {
    const parsed = agentHandshakeSchema.safeParse(socket.handshake.auth);
    if (!parsed.success) return next(connectRefusal('BAD_HANDSHAKE', 'Invalid agent handshake'));
    const h = parsed.data;
    const register = async (deadline: number) => {
      const caller = await deps.identity.fromApiKey(h.apiKey);
      const reg = await orchestrator.registerAgent(registerRequest(caller.id, h), {
        timeoutMs: Math.max(1, deadline - Date.now()),
      });
      socket.data = {
        userId: caller.id,
        agentId: reg.agentId,
        databases: reg.databases.map((d) => ({ name: d.name, isActive: d.isActive })),
        reported: namesKey(h.databases),
      };
    };
    // An agent that closes its connection while waiting gives its place up: nobody registers it.
    const closed = new AbortController();
    const onClose = () => closed.abort();
    socket.conn.once('close', onClose);
    deps.gate
      .admit(h.apiKey, deps.addressOf(socket.request), {
        waitUntil: Date.now() + deps.handshakeWaitMs,
        gone: closed.signal,
      })
      .then(async (done) => {
        try {
          // The registration's own bound starts with its turn: the orchestrator abandons it then.
          await register(Date.now() + deps.handshakeTimeoutMs);
        } finally {
          done();
        }
      })
      .finally(() => socket.conn.off('close', onClose))
      .then(
        () => next(),
        (err: unknown) => next(refusalFor(err)),
      );
  });

  agentsConnected(); // exported (as 0) from the start: "no agent connected" must be a value, not an absence
  nsp.on('connection', (socket) => {
    const { userId, agentId, databases } = socket.data;
    void socket.join([agentRoom(agentId), agentsOfRoom(userId)]);
    socket.emit('registered', { agentId, databases });
    deps.log.info({ userId, agentId }, 'agent connected');
    agentsConnected().inc();
    deps.news.status(userId, { agentId, change: 'connected' });

    // Every report is validated, then relayed; acknowledged events answer once the orchestrator has
    // it. The payload is typed by the contract but arrives untrusted: only the parsed one is relayed.
    const on = <E extends AgentEventName>(
      event: E,
      relay: (payload: ValidAgentEvent<E>) => Promise<unknown> | void,
    ) => {
      const listen = socket.on.bind(socket) as (
        e: E,
        l: (payload: unknown, ack?: (answer: ReportAck) => void) => void,
      ) => void;
      listen(event, (payload, ack) => {
        const parsed = agentEventSchemas[event].safeParse(payload);
        if (!parsed.success) {
          ack?.({ ok: false, error: `Invalid ${event} payload` });
          return;
        }
        Promise.resolve(relay(parsed.data as ValidAgentEvent<E>)).then(
          () => ack?.({ ok: true }),
          (err: unknown) => {
            deps.log.warn({ err, event, agentId }, 'agent report failed');
            ack?.({
              ok: false,
              error: err instanceof AppError ? err.message : 'The report could not be recorded',
              // Only a refusal of the report itself (bad input, unknown job, wrong state) is final.
              retry: !(err instanceof AppError) || err.kind === 'UNAVAILABLE' || err.kind === 'INTERNAL',
            });
          },
        );
      });
    };

    // Once the agent said it is leaving, a heartbeat (one already on its way) must not make it
    // active again: the leaving waits for the heartbeat being relayed, and later ones are dropped.
    let leaving: Promise<unknown> | null = null;
    let lastHeartbeat: Promise<unknown> = Promise.resolve();
    on('heartbeat', (p) => {
      if (leaving) return;
      // An empty list keeps the previous one (see the orchestrator's heartbeat).
      const reported = p.databases.length ? namesKey(p.databases) : socket.data.reported;
      lastHeartbeat = orchestrator.agentHeartbeat({ userId, agentId, ...p }).then(() => {
        // `coffer-agent db add` (or remove) on the agent's server: the dashboard's selector follows.
        if (reported === socket.data.reported) return;
        socket.data.reported = reported;
        deps.news.status(userId, { agentId, change: 'databases' });
      });
      return lastHeartbeat;
    });
    on('agent:leaving', async (p) => {
      leaving = (async () => {
        await lastHeartbeat.catch(() => undefined);
        await orchestrator.agentLeaving({ userId, agentId, restarting: p.restarting ?? false });
      })();
      await leaving;
      deps.news.status(userId, { agentId, change: 'disconnected' });
      deps.log.info({ userId, agentId, restarting: p.restarting ?? false }, 'agent leaving');
    });
    on('backup:progress', (p) =>
      deps.bus.publishLive(PROGRESS_SUBJECTS.backup, {
        userId,
        backupId: p.backupId,
        status: 'in-progress',
        progress: p.progress,
      }),
    );
    on('backup:failed', (p) =>
      orchestrator.failBackup({ userId, agentId, jobId: p.backupId, error: p.error }),
    );
    on('backup:contents', (p) =>
      orchestrator.recordBackupContents({
        userId,
        agentId,
        backupId: p.backupId,
        collections: p.collections,
      }),
    );
    on('restore:started', (p) => orchestrator.restoreStarted({ userId, agentId, jobId: p.restoreId }));
    on('restore:progress', (p) =>
      deps.bus.publishLive(PROGRESS_SUBJECTS.restore, {
        userId,
        restoreId: p.restoreId,
        status: 'in-progress',
        progress: p.progress,
      }),
    );
    on('restore:completed', (p) => orchestrator.completeRestore({ userId, agentId, ...p }));
    on('restore:failed', (p) =>
      orchestrator.failRestore({ userId, agentId, jobId: p.restoreId, error: p.error }),
    );
    on('agent:update', async (p) => {
      await orchestrator.reportAgentUpdate({
        userId,
        agentId,
        ...p,
        status: agentUpdateStatus.toProto(p.status),
      });
      deps.news.update(userId, { agentId, ...p });
    });
    // Verified backups: the dump's summary (before the upload ends) and the verification's reports.
    on('backup:summary', (p) => orchestrator.recordBackupSummary({ userId, agentId, ...p }));
    on('verify:progress', (p) =>
      deps.bus.publishLive(PROGRESS_SUBJECTS.verification, {
        userId,
        verificationId: p.verificationId,
        status: 'in-progress',
        progress: p.progress,
      }),
    );
    on('verify:completed', async (p) => {
      await orchestrator.completeVerification({ userId, agentId, ...p });
      deps.bus.publishLive(PROGRESS_SUBJECTS.verification, {
        userId,
        verificationId: p.verificationId,
        status: p.verified ? 'completed' : 'failed',
      });
    });
    on('verify:failed', async (p) => {
      await orchestrator.failVerification({ userId, agentId, jobId: p.verificationId, error: p.error });
      deps.bus.publishLive(PROGRESS_SUBJECTS.verification, {
        userId,
        verificationId: p.verificationId,
        status: 'failed',
        error: p.error,
      });
    });

    socket.on('disconnect', () => {
      agentsConnected().dec();
      void (async () => {
        // A quick reconnect may already hold a socket (here or on another gateway): then it's still online.
        const others = await nsp.in(agentRoom(agentId)).fetchSockets();
        if (others.length > 0) return;
        // The agent said it was leaving and the socket closed right after: that report is the
        // disconnect (it says why, and a restart mails no alarm), so it must be recorded first.
        await leaving?.catch(() => undefined);
        await orchestrator.agentDisconnected({ userId, agentId, reason: '' });
        deps.news.status(userId, { agentId, change: 'disconnected' });
        deps.log.info({ userId, agentId }, 'agent disconnected');
      })().catch((err: unknown) => {
        // Removed from the dashboard: there is no record left to mark.
        if (err instanceof AppError && err.kind === 'NOT_FOUND') return;
        deps.log.warn({ err, agentId }, 'recording the disconnect failed');
      });
    });
  });
  return nsp;
}
