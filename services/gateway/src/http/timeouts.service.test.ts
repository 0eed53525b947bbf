// Service test: a gateway of its own (the real process) with a short body deadline, against real
// NATS and Redis; the backend services are not needed for what is checked here.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  freePort,
  startNats,
  startProcess,
  startRedis,
  waitFor,
  TEST_SECRETS,
  type Proc,
  type RunningServer,
} from '@coffer/local-stack';

const ROOT = path.resolve(__dirname, '../../../..');
const MAIN = path.join(ROOT, 'services/gateway/dist/main.js');

jest.setTimeout(120_000);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-gateway-timeouts-'));
const servers: RunningServer[] = [];
let gateway: Proc | undefined;
let port = 0;

beforeAll(async () => {
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'services/gateway'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
  servers.push(await startNats({ dataDir: dir }), await startRedis({ dataDir: dir }));
  const [nats, redis] = servers as [RunningServer, RunningServer];
  port = await freePort();
  const opsPort = await freePort();
  gateway = startProcess('gateway', process.execPath, [MAIN], {
    logDir: dir,
    env: {
      NODE_ENV: 'test',
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      JWT_SECRET: TEST_SECRETS.jwtSecret,
      PORT: String(port),
      OPS_PORT: String(opsPort),
      // Nothing listens there: these tests never reach a backend service.
      AUTH_GRPC: `127.0.0.1:${await freePort()}`,
      HTTP_BODY_TIMEOUT_MS: '1000',
      HTTP_KEEPALIVE_TIMEOUT_MS: '1000',
    },
  });
  await waitFor(
    'gateway',
    () =>
      fetch(`http://127.0.0.1:${opsPort}/readyz`).then(
        (r) => r.ok,
        () => false,
      ),
    60_000,
    gateway,
  );
});

afterAll(async () => {
  await gateway?.stop();
  await Promise.all(servers.map((s) => s.stop()));
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Sends the headers of a request whose body never fully arrives: one byte, then one more each
 * `everyMs`, far fewer than Content-Length announces. Resolves with what the server sent back and
 * whether the server closed the connection before the client gave up sending.
 */
function trickle(p: string, everyMs: number, bytes: number, method = 'POST') {
  return new Promise<{ answer: string; closedByServer: boolean }>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(
        `${method} ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
      );
      timer = setInterval(() => {
        if (++sent >= bytes) {
          clearInterval(timer);
          socket.destroy();
          resolve({ answer, closedByServer: false });
          return;
        }
        socket.write(' ');
      }, everyMs);
    });
    socket.on('data', (d) => (answer += d.toString()));
    const closed = () => {
      clearInterval(timer);
      resolve({ answer, closedByServer: sent < bytes });
    };
    socket.on('end', closed);
    socket.on('close', closed);
    socket.on('error', () => undefined);
  });
}

/**
 * Sends one complete request without a body and then stays silent; resolves with the answer and
 * whether the server ended the idle connection within `waitMs`.
 */
function idleAfterAnswer(p: string, method: string, waitMs: number) {
  return new Promise<{ answer: string; closedByServer: boolean }>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closedByServer: false });
    }, waitMs);
    socket.on('connect', () => socket.write(`${method} ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('end', () => {
      clearTimeout(giveUp);
      resolve({ answer, closedByServer: true });
    });
    socket.on('error', () => undefined);
  });
}

describe('the gateway HTTP server', () => {
  it('cuts off a client trickling a request body, with a 408', async () => {
    // 60 bytes, one every 500 ms: half a minute of trickling against a 1 s deadline.
    const { answer, closedByServer } = await trickle('/api/auth/login', 500, 60);
    expect(closedByServer).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('The request body took too long to arrive');
  });

  it('still answers a request whose body arrives', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nope', password: 'x' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe('Please enter a valid email address');
  });

  it('answers an agent upload without a key with 401 and ends the connection, though the client keeps sending', async () => {
    // 80 bytes, one every 250 ms: 20 s of sending, far past the 1 s keep-alive limit.
    const { answer, closedByServer } = await trickle(
      '/api/agent/backups/65a1b2c3d4e5f60718293a4b/data',
      250,
      80,
      'PUT',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(closedByServer).toBe(true);
  });

  it('reads no body on any other /api/agent/ path: answered at once and the connection ended', async () => {
    const { answer, closedByServer } = await trickle('/api/agent/anything', 250, 80);
    expect(answer).toMatch(/^HTTP\/1\.1 404 /);
    expect(closedByServer).toBe(true);
  });

  it('keeps the keep-alive limit on a connection after an agent data request', async () => {
    const { answer, closedByServer } = await idleAfterAnswer(
      '/api/agent/restores/65a1b2c3d4e5f60718293a4b/data',
      'GET',
      15_000,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(closedByServer).toBe(true);
  });
});
