import { EventEmitter } from 'node:events';
import { connectRefusal, CONNECT_REFUSAL_CODES } from '@coffer/contracts';
import { Backoff } from './backoff.js';
import { createConnection, type AgentSocket } from './connection.js';
import type { Fields, Logger } from './log.js';
import { refusalHandling } from './refusals.js';
import type { ConnectionStatus } from './status-file.js';

describe('refusalHandling', () => {
  it('acts on the code: a retired identity renews it, a key or account problem waits for the user', () => {
    expect(refusalHandling('AGENT_RESET')).toEqual({ action: 'renew-identity' });
    expect(refusalHandling('INVALID_API_KEY')).toEqual({
      action: 'retry-slowly',
      advice: expect.stringMatching(/Settings → Security/),
    });
    expect(refusalHandling('ACCOUNT_SUSPENDED')).toEqual({
      action: 'retry-slowly',
      advice: 'The Coffer account this agent belongs to is suspended.',
    });
    expect(refusalHandling('REGISTRATION_FAILED')).toEqual({ action: 'retry' });
    expect(refusalHandling('BAD_HANDSHAKE')).toEqual({ action: 'retry' });
    expect(refusalHandling(undefined)).toEqual({ action: 'retry' });
  });

  it('has an answer for every code of the contract', () => {
    for (const code of CONNECT_REFUSAL_CODES) expect(refusalHandling(code)).toHaveProperty('action');
  });
});

/** The parts of a socket.io-client Socket the connection uses. */
class FakeSocket extends EventEmitter {
  connected = false;
  active = false;
  connects = 0;
  closed = false;
  connect() {
    this.connects++;
    return this;
  }
  disconnect() {
    this.connected = false;
    return this;
  }
  close() {
    this.closed = true;
    return this;
  }
}

function setup(over: { renewIdentity?: () => Promise<void> } = {}) {
  const socket = new FakeSocket();
  const lines: Array<{ level: string; msg: string } & Fields> = [];
  const line =
    (level: string) =>
    (msg: string, fields: Fields = {}) =>
      lines.push({ level, msg, ...fields });
  const log: Logger = { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
  const status: ConnectionStatus & { failures: string[] } = {
    failures: [],
    connected: () => undefined,
    disconnected: () => undefined,
    failed: (e) => status.failures.push(e),
    jobFailed: () => undefined,
  };
  const renewIdentity = jest.fn(over.renewIdentity ?? (async () => undefined));
  let url = '';
  const connection = createConnection({
    server: 'https://gw.example/some/path',
    handshake: () => ({ apiKey: 'cof_secret_key', instanceId: 'i'.repeat(36), name: 'db-box' }),
    log,
    status,
    scrub: (t) => t.split('cof_secret_key').join('****'),
    authRetryMs: 60_000,
    stopping: () => false,
    renewIdentity,
    onDisconnect: () => undefined,
    backoff: new Backoff(1000, 30_000, 0.5, () => 0.5),
    createSocket: (u) => {
      url = u;
      return socket as unknown as AgentSocket;
    },
  });
  /** What socket.io-client emits when the server's middleware refuses the connection. */
  const refuse = (err: Error) => socket.emit('connect_error', err);
  return { socket, connection, lines, status, renewIdentity, refuse, url: () => url };
}

describe('connection', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("opens the agents' namespace of the server's origin", () => {
    expect(setup().url()).toBe('https://gw.example/agents');
  });

  it('a refused API key: logged as an error with advice, in the status file, retried after the slow interval', () => {
    const { socket, lines, status, refuse } = setup();
    refuse(connectRefusal('INVALID_API_KEY', 'Invalid API key'));
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'the server refused the connection',
        error: 'Invalid API key',
        advice: expect.stringMatching(/Settings → Security/),
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        advice: expect.stringContaining(
          '`coffer-agent init --server https://gw.example`, which asks for it (or re-run the installer)',
        ),
      }),
    );
    // `coffer-agent status` shows the advice too.
    expect(status.failures).toEqual([
      expect.stringMatching(
        /^Cannot connect to https:\/\/gw\.example: Invalid API key\. The server does not accept this API key .*coffer-agent init --server https:\/\/gw\.example`, which asks for it/,
      ),
    ]);
    jest.advanceTimersByTime(59_999);
    expect(socket.connects).toBe(0);
    jest.advanceTimersByTime(1);
    expect(socket.connects).toBe(1);
  });

  it('a new key (reconnectNow) does not wait for the slow retry, which then does not connect again', () => {
    const { socket, connection, refuse } = setup();
    refuse(connectRefusal('INVALID_API_KEY', 'Invalid API key'));
    connection.reconnectNow();
    expect(socket.connects).toBe(1);
    jest.advanceTimersByTime(60_000);
    expect(socket.connects).toBe(1);
  });

  it('a suspended account is treated the same way', () => {
    const { socket, lines, refuse } = setup();
    refuse(connectRefusal('ACCOUNT_SUSPENDED', 'Your account has been suspended'));
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'error', error: 'Your account has been suspended' }),
    );
    jest.advanceTimersByTime(60_000);
    expect(socket.connects).toBe(1);
  });

  it('a retired identity: a new instance id, then a reconnect at once, and no error in the status file', async () => {
    const { socket, status, renewIdentity, refuse } = setup();
    refuse(connectRefusal('AGENT_RESET', 'This agent connection was reset from the dashboard'));
    expect(renewIdentity).toHaveBeenCalledTimes(1);
    await Promise.resolve();
    jest.advanceTimersByTime(0);
    expect(socket.connects).toBe(1);
    expect(status.failures).toEqual([]);
  });

  it('goes by the code, not the wording: a message that reads like a refusal without a code is passing trouble', () => {
    const { socket, lines, renewIdentity, refuse } = setup();
    refuse(new Error('Invalid API key; connection was reset from the dashboard'));
    expect(renewIdentity).not.toHaveBeenCalled();
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'cannot connect' }));
    jest.advanceTimersByTime(1000); // the first backoff step
    expect(socket.connects).toBe(1);
  });

  it('leaves transport errors to socket.io while it is still retrying by itself', () => {
    const { socket, refuse } = setup();
    socket.active = true;
    refuse(new Error('websocket error'));
    jest.advanceTimersByTime(120_000);
    expect(socket.connects).toBe(0);
  });

  it('never shows a secret from a refusal', () => {
    const { lines, status, refuse } = setup();
    refuse(connectRefusal('REGISTRATION_FAILED', 'No agent for cof_secret_key'));
    expect(JSON.stringify(lines)).not.toContain('cof_secret_key');
    expect(status.failures).toEqual(['Cannot connect to https://gw.example: No agent for ****']);
  });

  it('reconnects after the server closed the connection on purpose, not after the agent did', () => {
    const { socket } = setup();
    socket.emit('disconnect', 'io client disconnect');
    jest.advanceTimersByTime(60_000);
    expect(socket.connects).toBe(0);
    socket.emit('disconnect', 'io server disconnect');
    jest.advanceTimersByTime(1000);
    expect(socket.connects).toBe(1);
  });
});
