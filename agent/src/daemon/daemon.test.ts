// The daemon's shutdown against a real Socket.IO server standing in for the gateway's /agents
// namespace: a stopping agent tells the server it is leaving before its socket closes, and a
// server that never answers (an older gateway) holds the shutdown up only briefly.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Server } from 'socket.io';
import { AGENT_NAMESPACE, SOCKET_IO_PATH, type ReportAck } from '@coffer/contracts';
import { saveConfig, statusPathFor } from '../config/config.js';
import { encodeKey, generateMasterKey } from '../crypto/key.js';
import { readStatus } from '../status.js';
import { startDaemon, type Daemon } from './daemon.js';

const AGENT_ID = 'dddddddddddddddddddddddd';

interface Gateway {
  url: string;
  /** What the agent did, in order: 'registered', 'heartbeat', 'leaving {…}', 'disconnect'. */
  seen: string[];
  close(): Promise<void>;
}

/** A Socket.IO server with the gateway's namespace and path; `answersLeaving` false = an older gateway. */
async function startGateway(answersLeaving: boolean): Promise<Gateway> {
  const http: HttpServer = createServer();
  const io = new Server(http, { path: SOCKET_IO_PATH, transports: ['websocket'] });
  const seen: string[] = [];
  io.of(AGENT_NAMESPACE).on('connection', (socket) => {
    socket.on('heartbeat', (_p: unknown, ack: (a: ReportAck) => void) => {
      seen.push('heartbeat');
      ack({ ok: true });
    });
    if (answersLeaving)
      socket.on('agent:leaving', (p: unknown, ack: (a: ReportAck) => void) => {
        seen.push(`leaving ${JSON.stringify(p)}`);
        ack({ ok: true });
      });
    socket.on('disconnect', () => seen.push('disconnect'));
    socket.emit('registered', { agentId: AGENT_ID, databases: [] });
    seen.push('registered');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => void io.close(() => resolve())),
  };
}

let dir: string;
let gateway: Gateway | undefined;
let daemon: Daemon | undefined;
let output: string;

async function runAgent(answersLeaving: boolean) {
  gateway = await startGateway(answersLeaving);
  const configPath = path.join(dir, 'agent.json');
  await saveConfig(configPath, {
    version: 1,
    server: gateway.url,
    apiKey: 'cof_unit_test_key',
    name: 'unit-agent',
    masterKey: encodeKey(generateMasterKey()),
    databases: [],
  });
  const out = new PassThrough();
  out.setEncoding('utf8').on('data', (s: string) => (output += s));
  daemon = await startDaemon({ configPath, version: '1.0.0', out, env: {} });
  // Registered and heard from: the status file says connected with the agent id.
  for (let i = 0; i < 200 && !gateway.seen.includes('heartbeat'); i++)
    await new Promise((r) => setTimeout(r, 25));
  expect(gateway.seen).toContain('heartbeat');
  return { configPath, gateway, daemon };
}

const logs = () =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: string; msg: string; error?: string });

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-daemon-'));
  output = '';
});
afterEach(async () => {
  await daemon?.stop();
  await gateway?.close();
  daemon = gateway = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('a daemon that stops', () => {
  it('tells the server it is leaving, and only then closes its socket', async () => {
    const { gateway, daemon, configPath } = await runAgent(true);
    await daemon.stop('Agent stopped');
    await expect(daemon.done).resolves.toBe('stopped');
    // The server saw the disconnect by the time its own close completes.
    await gateway.close();
    const afterRegistration = gateway.seen.filter((s) => s !== 'heartbeat');
    expect(afterRegistration).toEqual(['registered', 'leaving {"restarting":false}', 'disconnect']);
    expect(logs().map((l) => l.msg)).toContain('the server knows this agent is leaving');
    const status = await readStatus(statusPathFor(configPath));
    expect(status.status).toMatchObject({ connected: false, jobs: [] });
  });

  it('still stops when the server does not answer (an older gateway), and says so', async () => {
    const { gateway, daemon } = await runAgent(false);
    await daemon.stop('Agent stopped');
    await expect(daemon.done).resolves.toBe('stopped');
    await gateway.close();
    expect(gateway.seen.at(-1)).toBe('disconnect');
    expect(logs().find((l) => l.msg === 'could not tell the server this agent is leaving')).toMatchObject({
      level: 'warn',
      error: 'no answer within 5 s',
    });
  });
});
