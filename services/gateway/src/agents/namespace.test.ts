import { EventEmitter } from 'node:events';
import type { Server } from 'socket.io';
import {
  AppError,
  conflict,
  createLogger,
  forbidden,
  notFound,
  unavailable,
  unauthenticated,
  type EventBus,
} from '@coffer/common';
import { refusalCodeOf, type ReportAck } from '@coffer/contracts';
import { orchestrator } from '@coffer/proto';
import type { Clients } from '../clients';
import type { Identity } from '../http/identity';
import { startAccessRevocation } from './commands';
import type { AgentNews } from '../realtime/agent-news';
import type { HandshakeGate } from './handshake-gate';
import { agentRoom, agentSockets, agentsOfRoom, startAgentNamespace, type AgentNamespace } from './namespace';

type Ack = (answer: ReportAck) => void;

// These cases start at a connected socket: no handshake runs.
const noHandshakes = {
  gate: {} as HandshakeGate,
  addressOf: () => '127.0.0.1',
  handshakeWaitMs: 120_000,
  handshakeTimeoutMs: 15_000,
  news: { status: () => {}, update: () => {} } as AgentNews,
};

const USER = '64b7f0c2a1b2c3d4e5f60718';
const AGENT = 'dddddddddddddddddddddddd';

/**
 * One connected agent socket on a namespace whose Socket.IO server is faked, its orchestrator
 * calls answered (and recorded) by `orchestratorCalls`; returns a way to emit the agent's events.
 */
function connectedAgent(orchestratorCalls: Record<string, jest.Mock>, news: AgentNews = noHandshakes.news) {
  const listeners = new Map<string, (payload: unknown, ack?: Ack) => void>();
  let connection: ((socket: unknown) => void) | undefined;
  const nsp = {
    use: () => {},
    on: (_event: string, l: (socket: unknown) => void) => (connection = l),
  };
  startAgentNamespace({
    io: { of: () => nsp } as unknown as Server,
    identity: {} as Identity,
    clients: { orchestrator: orchestratorCalls } as unknown as Clients,
    bus: {} as EventBus,
    log: createLogger('test', 'silent'),
    ...noHandshakes,
    news,
  });
  connection!({
    data: { userId: USER, agentId: AGENT, databases: [], reported: '' },
    join: async () => {},
    emit: () => {},
    on: (event: string, l: (payload: unknown, ack?: Ack) => void) => listeners.set(event, l),
  });
  /** Emits an acknowledged event from the agent and resolves to the gateway's answer. */
  return (event: string, payload: unknown) =>
    new Promise<Parameters<Ack>[0]>((resolve) => listeners.get(event)!(payload, resolve));
}

describe('agent namespace: agent:update', () => {
  it("relays the outcome with the socket's user and agent, and acknowledges once it is recorded", async () => {
    const report = jest.fn().mockResolvedValue({});
    const emit = connectedAgent({ reportAgentUpdate: report });
    await expect(
      emit('agent:update', { status: 'failed', fromVersion: '1.2.0', toVersion: '1.2.0', error: 'denied' }),
    ).resolves.toEqual({ ok: true });
    expect(report).toHaveBeenCalledWith({
      userId: USER,
      agentId: AGENT,
      status: orchestrator.AgentUpdateStatus.AGENT_UPDATE_STATUS_FAILED,
      fromVersion: '1.2.0',
      toVersion: '1.2.0',
      error: 'denied',
    });
  });

  it("tells the owner's dashboards the outcome once it is recorded, and nothing when it is not", async () => {
    const update = jest.fn();
    const news = { status: () => {}, update };
    const outcome = { status: 'current', fromVersion: '1.2.0', toVersion: '1.2.0' };
    await connectedAgent({ reportAgentUpdate: jest.fn().mockRejectedValue(unavailable('down')) }, news)(
      'agent:update',
      outcome,
    );
    expect(update).not.toHaveBeenCalled();
    await connectedAgent({ reportAgentUpdate: jest.fn().mockResolvedValue({}) }, news)(
      'agent:update',
      outcome,
    );
    expect(update).toHaveBeenCalledWith(USER, { agentId: AGENT, ...outcome });
  });

  it('refuses a bad payload without calling the orchestrator', async () => {
    const report = jest.fn();
    const emit = connectedAgent({ reportAgentUpdate: report });
    await expect(
      emit('agent:update', { status: 'maybe', fromVersion: '1', toVersion: '2' }),
    ).resolves.toEqual({
      ok: false,
      error: 'Invalid agent:update payload',
    });
    expect(report).not.toHaveBeenCalled();
  });

  it("passes on the orchestrator's answer when it refuses the report", async () => {
    const emit = connectedAgent({
      reportAgentUpdate: jest.fn().mockRejectedValue(notFound('Agent not found')),
    });
    await expect(
      emit('agent:update', { status: 'updated', fromVersion: '1.2.0', toVersion: '1.3.0' }),
    ).resolves.toEqual({ ok: false, error: 'Agent not found', retry: false });
  });

  it('asks the agent to send the report again when the orchestrator cannot take it right now', async () => {
    const down = unavailable('A Coffer service is not answering right now. Please try again shortly.');
    for (const err of [down, new Error('14 UNAVAILABLE: No connection established')]) {
      const emit = connectedAgent({ reportAgentUpdate: jest.fn().mockRejectedValue(err) });
      await expect(
        emit('agent:update', { status: 'updated', fromVersion: '1.2.0', toVersion: '1.3.0' }),
      ).resolves.toMatchObject({ ok: false, retry: true });
    }
  });
});

describe('agent namespace: agent:leaving', () => {
  it('tells the orchestrator, and acknowledges once it is recorded', async () => {
    const agentLeaving = jest.fn().mockResolvedValue({});
    const emit = connectedAgent({ agentLeaving });
    await expect(emit('agent:leaving', {})).resolves.toEqual({ ok: true });
    await expect(emit('agent:leaving', { restarting: true })).resolves.toEqual({ ok: true });
    expect(agentLeaving.mock.calls).toEqual([
      [{ userId: USER, agentId: AGENT, restarting: false }],
      [{ userId: USER, agentId: AGENT, restarting: true }],
    ]);
  });

  it('records a heartbeat already on its way first, and relays none after it', async () => {
    const order: string[] = [];
    let finishHeartbeat!: () => void;
    const agentHeartbeat = jest.fn(
      () =>
        new Promise<object>((resolve) => {
          finishHeartbeat = () => {
            order.push('heartbeat');
            resolve({});
          };
        }),
    );
    const agentLeaving = jest.fn(async () => {
      order.push('leaving');
      return {};
    });
    const emit = connectedAgent({ agentHeartbeat, agentLeaving });
    const beat = emit('heartbeat', { runningJobs: [], databases: ['shop'] });
    const left = emit('agent:leaving', {});
    await new Promise((r) => setImmediate(r));
    expect(agentLeaving).not.toHaveBeenCalled();
    finishHeartbeat();
    await expect(beat).resolves.toEqual({ ok: true });
    await expect(left).resolves.toEqual({ ok: true });
    await expect(emit('heartbeat', { runningJobs: [], databases: ['shop'] })).resolves.toEqual({ ok: true });
    expect(order).toEqual(['heartbeat', 'leaving']);
    expect(agentHeartbeat).toHaveBeenCalledTimes(1);
  });

  it("passes on the orchestrator's refusal (an older orchestrator does not know the call)", async () => {
    const emit = connectedAgent({ agentLeaving: jest.fn().mockRejectedValue(notFound('Agent not found')) });
    await expect(emit('agent:leaving', {})).resolves.toEqual({
      ok: false,
      error: 'Agent not found',
      retry: false,
    });
  });
});

describe('agent namespace: refused connections', () => {
  const handshake = {
    apiKey: 'cof_key',
    instanceId: 'f2d3c4b5-a697-4881-9a0b-1c2d3e4f5a6b',
    name: 'db-box',
    hostname: 'db-box',
    platform: 'linux-x64',
    version: '0.2.0',
    databases: ['shop'],
  };

  /** Runs the namespace's middleware for one handshake; resolves with what it passed to next(). */
  function connect(
    auth: unknown,
    over: {
      fromApiKey?: jest.Mock;
      registerAgent?: jest.Mock;
      gate?: HandshakeGate;
      conn?: EventEmitter;
    } = {},
  ) {
    let middleware: ((socket: unknown, next: (err?: Error) => void) => void) | undefined;
    const nsp = { use: (m: typeof middleware) => (middleware = m), on: () => {} };
    startAgentNamespace({
      io: { of: () => nsp } as unknown as Server,
      identity: {
        fromApiKey: over.fromApiKey ?? jest.fn().mockResolvedValue({ id: '64b7f0c2a1b2c3d4e5f60718' }),
      } as unknown as Identity,
      clients: {
        orchestrator: {
          registerAgent: over.registerAgent ?? jest.fn().mockResolvedValue({ agentId: AGENT, databases: [] }),
        },
      } as unknown as Clients,
      bus: {} as EventBus,
      log: createLogger('test', 'silent'),
      ...noHandshakes,
      gate: over.gate ?? { admit: async () => () => {} },
    });
    return new Promise<Error | undefined>((resolve) =>
      middleware!({ handshake: { auth }, data: {}, conn: over.conn ?? new EventEmitter() }, resolve),
    );
  }
  const refused = async (p: Promise<Error | undefined>) => {
    const err = await p;
    return { message: err?.message, code: refusalCodeOf(err) };
  };

  it('gives up the turn of an agent whose connection closes while it waits', async () => {
    const conn = new EventEmitter();
    let gone: AbortSignal | undefined;
    const gate: HandshakeGate = {
      admit: (_key, _address, opts) => {
        gone = opts.gone;
        return new Promise((_resolve, reject) =>
          opts.gone!.addEventListener('abort', () => reject(new Error('gone'))),
        );
      },
    };
    const answer = connect(handshake, { gate, conn });
    expect(gone?.aborted).toBe(false);
    conn.emit('close');
    expect(gone?.aborted).toBe(true);
    await expect(refused(answer)).resolves.toMatchObject({ code: 'REGISTRATION_FAILED' });
    expect(conn.listenerCount('close')).toBe(0);
  });

  it('registers a valid handshake, passing on its deadline', async () => {
    const registerAgent = jest.fn().mockResolvedValue({ agentId: AGENT, databases: [] });
    await expect(connect(handshake, { registerAgent })).resolves.toBeUndefined();
    const [, opts] = registerAgent.mock.calls[0] as [unknown, { timeoutMs: number }];
    expect(opts.timeoutMs).toBeGreaterThan(0);
    expect(opts.timeoutMs).toBeLessThanOrEqual(noHandshakes.handshakeTimeoutMs);
  });

  it.each([
    [
      'a handshake that breaks the contract',
      { ...handshake, apiKey: '' },
      {},
      'BAD_HANDSHAKE',
      'Invalid agent handshake',
    ],
    [
      'a key auth does not know',
      handshake,
      { fromApiKey: jest.fn().mockRejectedValue(unauthenticated('Invalid API key')) },
      'INVALID_API_KEY',
      'Invalid API key',
    ],
    [
      'a suspended account',
      handshake,
      {
        fromApiKey: jest
          .fn()
          .mockRejectedValue(forbidden('Your account has been suspended', 'ACCOUNT_BANNED')),
      },
      'ACCOUNT_SUSPENDED',
      'Your account has been suspended',
    ],
    [
      'an instance retired by a reset',
      handshake,
      {
        registerAgent: jest
          .fn()
          .mockRejectedValue(conflict('This agent connection was reset', 'AGENT_RESET')),
      },
      'AGENT_RESET',
      'This agent connection was reset',
    ],
    [
      'a registration the orchestrator refuses',
      handshake,
      { registerAgent: jest.fn().mockRejectedValue(new AppError('BAD_INPUT', 'Agent name is too long')) },
      'REGISTRATION_FAILED',
      'Agent name is too long',
    ],
    [
      'an unexpected failure, without its details',
      handshake,
      { registerAgent: jest.fn().mockRejectedValue(new Error('connect ECONNREFUSED 10.0.0.7:50051')) },
      'REGISTRATION_FAILED',
      'Agent registration failed',
    ],
  ])('refuses %s with a code the agent acts on', async (_what, auth, over, code, message) => {
    await expect(refused(connect(auth, over))).resolves.toEqual({ code, message });
  });
});

describe('agent namespace: rooms', () => {
  it("joins the agent's room and the room of its user's agents", () => {
    let connection: ((socket: unknown) => void) | undefined;
    const nsp = { use: () => {}, on: (_e: string, l: (socket: unknown) => void) => (connection = l) };
    startAgentNamespace({
      io: { of: () => nsp } as unknown as Server,
      identity: {} as Identity,
      clients: { orchestrator: {} } as unknown as Clients,
      bus: {} as EventBus,
      log: createLogger('test', 'silent'),
      ...noHandshakes,
    });
    const join = jest.fn(async () => {});
    connection!({
      data: { userId: USER, agentId: AGENT, databases: [], reported: '' },
      join,
      emit: () => {},
      on: () => {},
    });
    expect(join).toHaveBeenCalledWith([agentRoom(AGENT), agentsOfRoom(USER)]);
  });

  it('closes the sockets of one agent (removed) or of all of a user’s agents (key replaced)', async () => {
    const closed: Array<[string, boolean]> = [];
    const nsp = {
      in: (room: string) => ({ disconnectSockets: (close: boolean) => closed.push([room, close]) }),
    } as unknown as AgentNamespace;
    const sockets = agentSockets(() => nsp);
    sockets.disconnectAgent(AGENT);
    sockets.disconnectUser(USER);
    expect(closed).toEqual([
      [`agent:${AGENT}`, true],
      [`agents-of:${USER}`, true],
    ]);
    // Before the namespace starts there is nothing to close.
    expect(() => agentSockets(() => undefined).disconnectUser(USER)).not.toThrow();
  });

  it("closes all of a user's agents when their key is replaced, they are banned, made inactive or deleted, and their browsers' ended sessions on all but a key change; nothing on an unban or a reactivation", async () => {
    const closed: string[] = [];
    const forgotten: string[] = [];
    const browsers = { ended: [] as string[], all: [] as string[] };
    const sockets = { disconnectAgent: () => {}, disconnectUser: (u: string) => closed.push(u) };
    let handler: ((e: { subject: string; data: object }) => Promise<void>) | undefined;
    const bus = {
      consume: async (o: { stream: string; subjects: string[]; handler: typeof handler }) => {
        expect(o.stream).toBe('AUTH');
        expect([...o.subjects].sort()).toEqual([
          'auth.user.api_key_regenerated',
          'auth.user.ban_changed',
          'auth.user.deleted',
          'auth.user.password_changed',
          'auth.user.status_changed',
        ]);
        handler = o.handler;
        return { stop: async () => {} };
      },
    } as unknown as EventBus;
    await startAccessRevocation({
      bus,
      sockets,
      browsers: {
        closeSession: () => {},
        closeAll: (u) => browsers.all.push(u),
        closeEnded: async (u) => browsers.ended.push(u),
      },
      log: createLogger('test', 'silent'),
      forget: (u) => forgotten.push(u),
    });
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((x) => x.repeat(24));
    await handler!({ subject: 'auth.user.api_key_regenerated', data: { userId: a } });
    await handler!({
      subject: 'auth.user.ban_changed',
      data: { userId: b, isBanned: true, banReason: 'abuse', actorId: d },
    });
    await handler!({
      subject: 'auth.user.ban_changed',
      data: { userId: c, isBanned: false, banReason: null, actorId: d },
    });
    await handler!({ subject: 'auth.user.deleted', data: { userId: d, actorId: d } });
    const [e, f] = ['e', 'f'].map((x) => x.repeat(24));
    await handler!({
      subject: 'auth.user.status_changed',
      data: { userId: e, email: 'e@example.com', status: 'inactive', actorId: d },
    });
    await handler!({
      subject: 'auth.user.status_changed',
      data: { userId: f, email: 'f@example.com', status: 'active', actorId: d },
    });
    const g = 'g'.repeat(24);
    await handler!({ subject: 'auth.user.password_changed', data: { userId: g, via: 'profile' } });
    expect(closed).toEqual([a, b, d, e]);
    // A deleted account's state may still admit its sessions for a moment: all of its sockets go.
    expect(browsers).toEqual({ ended: [b, e, g], all: [d] });
    // The gateway's cached account state goes too, so the next request sees the ban at once.
    expect(forgotten).toEqual([a, b, d, e, g]);
  });
});
