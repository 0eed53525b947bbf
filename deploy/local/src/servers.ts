import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { portInUse, startProcess, waitFor, which, type Proc } from './processes.js';

/** The real servers Coffer needs, started as local processes (architecture §6). */
export interface ServerPorts {
  nats: number;
  mongo: number;
  redis: number;
  smtp: number;
  mailWeb: number;
}

const listening = (port: number) => () => portInUse(port);

/** Process names of the servers (stopped after the services). */
export const SERVER_NAMES = ['nats', 'ferretdb', 'redis', 'maildev', 'minio'];

export interface Minio {
  proc: Proc;
  endpoint: string;
  accessKey: string;
  secretKey: string;
}

/** MinIO: a real S3 API for the S3 storage backend. Credentials are local-only. */
export async function startMinio(dataDir: string, port: number, consolePort: number): Promise<Minio> {
  const dir = path.join(dataDir, 'minio');
  fs.mkdirSync(dir, { recursive: true });
  const accessKey = 'coffer-local';
  const secretKey = 'coffer-local-secret';
  const proc = startProcess(
    'minio',
    which('minio'),
    [
      'server',
      dir,
      '--address',
      `127.0.0.1:${port}`,
      '--console-address',
      `127.0.0.1:${consolePort}`,
      '--quiet',
    ],
    {
      logDir: path.join(dataDir, 'logs'),
      env: { MINIO_ROOT_USER: accessKey, MINIO_ROOT_PASSWORD: secretKey },
    },
  );
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitFor('minio', httpOk(`${endpoint}/minio/health/live`), 60_000, proc);
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return { proc, endpoint, accessKey, secretKey };
}

function httpOk(url: string): () => Promise<boolean> {
  return () =>
    new Promise((resolve) => {
      http
        .get(url, (res) => {
          res.resume();
          resolve((res.statusCode ?? 500) < 500);
        })
        .on('error', () => resolve(false));
    });
}

export async function startServers(dataDir: string, ports: ServerPorts, repoRoot: string): Promise<Proc[]> {
  const logDir = path.join(dataDir, 'logs');
  const dir = (name: string) => {
    const d = path.join(dataDir, name);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  for (const [name, port] of Object.entries(ports)) {
    if (await portInUse(port))
      throw new Error(`port ${port} (${name}) is already in use; is Coffer already running?`);
  }
  const procs: Proc[] = [];
  const start = async (p: Proc, ready: () => Promise<boolean>) => {
    procs.push(p);
    await waitFor(p.name, ready, 60_000, p);
  };
  try {
    await Promise.all([
      start(
        startProcess(
          'nats',
          which('nats-server'),
          ['-js', '-sd', dir('nats'), '-a', '127.0.0.1', '-p', String(ports.nats)],
          {
            logDir,
          },
        ),
        listening(ports.nats),
      ),
      start(
        startProcess(
          'ferretdb',
          which('ferretdb'),
          [
            '--handler=sqlite',
            `--sqlite-url=file:${dir('ferretdb')}/`,
            `--state-dir=${dir('ferretdb-state')}`,
            '--telemetry=disable',
            '--log-level=warn',
            '--debug-addr=-',
            `--listen-addr=127.0.0.1:${ports.mongo}`,
          ],
          { logDir },
        ),
        listening(ports.mongo),
      ),
      start(
        startProcess(
          'redis',
          which('redis-server'),
          [
            '--port',
            String(ports.redis),
            '--bind',
            '127.0.0.1',
            '--dir',
            dir('redis'),
            '--save',
            '60 1',
            '--appendonly',
            'no',
          ],
          { logDir },
        ),
        listening(ports.redis),
      ),
      start(
        startProcess(
          'maildev',
          process.execPath,
          [
            path.join(repoRoot, 'node_modules/maildev/bin/maildev'),
            '--ip',
            '127.0.0.1',
            '--smtp',
            String(ports.smtp),
            '--web',
            String(ports.mailWeb),
            '--web-ip',
            '127.0.0.1',
          ],
          { logDir },
        ),
        httpOk(`http://127.0.0.1:${ports.mailWeb}/email`),
      ),
    ]);
  } catch (err) {
    await Promise.all(procs.map((p) => p.stop()));
    throw err;
  }
  return procs;
}
