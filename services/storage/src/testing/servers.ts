import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';

/**
 * Real servers for the storage service tests (FerretDB, NATS, MinIO), each on a port the OS
 * picked, in the caller's temp folder, with its output in `<dir>/<name>.log`.
 */
export interface TestServer {
  name: string;
  url: string;
  stop(): Promise<void>;
}

/** The binary's path on PATH; a missing one fails the test with what to do about it. */
export function requireBinary(bin: string): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir, bin);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // keep looking
    }
  }
  throw new Error(
    `'${bin}' is not on PATH, and the storage service tests need it. ` +
      `Run deploy/local/bootstrap.sh --with-minio (it builds ferretdb, nats-server and minio) and put its bin folder on PATH.`,
  );
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const tcpOpen = (port: number) => () =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

const httpOk = (url: string) => () =>
  new Promise<boolean>((resolve) => {
    http
      .get(url, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      })
      .on('error', () => resolve(false));
  });

async function launch(
  name: string,
  bin: string,
  args: string[],
  opts: { dir: string; env?: NodeJS.ProcessEnv; ready: () => Promise<boolean>; url: string },
): Promise<TestServer> {
  const logFile = path.join(opts.dir, `${name}.log`);
  const out = fs.openSync(logFile, 'a');
  const child: ChildProcess = spawn(requireBinary(bin), args, {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  child.on('error', () => undefined);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  const until = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-10).join('\n');
      throw new Error(`${name} exited with code ${child.exitCode} before it was ready:\n${tail}`);
    }
    if (await opts.ready()) break;
    if (Date.now() > until) {
      await stop();
      throw new Error(`${name} was not ready after 30 s; see ${logFile}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, url: opts.url, stop };
}

function sub(dir: string, name: string) {
  const d = path.join(dir, name);
  fs.mkdirSync(d, { recursive: true });
  return d;
}

export async function startFerretDb(dir: string): Promise<TestServer> {
  const port = await freePort();
  return launch(
    'ferretdb',
    'ferretdb',
    [
      '--handler=sqlite',
      `--sqlite-url=file:${sub(dir, 'ferretdb')}/`,
      `--state-dir=${sub(dir, 'ferretdb-state')}`,
      '--telemetry=disable',
      '--log-level=warn',
      '--debug-addr=-',
      `--listen-addr=127.0.0.1:${port}`,
    ],
    { dir, ready: tcpOpen(port), url: `mongodb://127.0.0.1:${port}` },
  );
}

export async function startNats(dir: string): Promise<TestServer> {
  const port = await freePort();
  return launch(
    'nats',
    'nats-server',
    ['-js', '-sd', sub(dir, 'nats'), '-a', '127.0.0.1', '-p', String(port)],
    {
      dir,
      ready: tcpOpen(port),
      url: `nats://127.0.0.1:${port}`,
    },
  );
}

export const MINIO_CREDENTIALS = { accessKeyId: 'coffer-test', secretAccessKey: 'coffer-test-secret-123' };

export async function startMinio(dir: string): Promise<TestServer> {
  const [port, consolePort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${port}`;
  return launch(
    'minio',
    'minio',
    [
      'server',
      sub(dir, 'minio'),
      '--quiet',
      '--address',
      `127.0.0.1:${port}`,
      '--console-address',
      `127.0.0.1:${consolePort}`,
    ],
    {
      dir,
      env: {
        MINIO_ROOT_USER: MINIO_CREDENTIALS.accessKeyId,
        MINIO_ROOT_PASSWORD: MINIO_CREDENTIALS.secretAccessKey,
        MINIO_BROWSER: 'off',
      },
      ready: httpOk(`${url}/minio/health/live`),
      url,
    },
  );
}
