import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, httpOk, listening, startProcess, waitFor, which, type Proc } from './processes.js';

// The real servers Coffer needs (architecture §6), each a local process: the local run and the
// integration tests start them all through startServers; service and agent tests start the few
// they need through the single starters.

export interface RunningServer {
  name: string;
  port: number;
  /** How clients reach it: mongodb://, nats://, redis:// or http:// on 127.0.0.1. */
  url: string;
  proc: Proc;
  stop(): Promise<void>;
}

export interface ServerOptions {
  /**
   * Parent of the server's data folder (`<dataDir>/<name>`) and, by default, of `logs/<name>.log`.
   * When absent, a fresh temporary folder that stop() removes.
   */
  dataDir?: string;
  logDir?: string;
  /** A fixed port (the local run); otherwise the OS picks a free one. */
  port?: number;
  timeoutMs?: number;
}

/** Starts `name`, waits until `ready` passes, and stops it again when it does not. */
async function launch(
  name: string,
  opts: ServerOptions,
  spec: (ctx: { port: number; dir: (sub: string) => string }) => {
    cmd: string;
    args: string[];
    env?: NodeJS.ProcessEnv;
    url: string;
    ready: () => Promise<boolean>;
  },
): Promise<RunningServer> {
  const scratch = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), `coffer-${name}-`));
  const port = opts.port ?? (await freePort());
  const dir = (sub: string) => {
    const d = path.join(dataDir, sub);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const s = spec({ port, dir });
  const proc = startProcess(name, s.cmd, s.args, {
    logDir: opts.logDir ?? path.join(dataDir, 'logs'),
    env: s.env,
  });
  proc.ready = s.ready;
  const stop = async () => {
    await proc.stop();
    if (scratch) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitFor(name, s.ready, opts.timeoutMs ?? 60_000, proc);
  } catch (err) {
    await stop();
    throw err;
  }
  return { name, port, url: s.url, proc, stop };
}

/** FerretDB on SQLite: the MongoDB Coffer's services (and the customer databases in tests) use. */
export function startFerretDb(opts: ServerOptions = {}): Promise<RunningServer> {
  return launch('ferretdb', opts, ({ port, dir }) => ({
    cmd: which('ferretdb'),
    args: [
      '--handler=sqlite',
      `--sqlite-url=file:${dir('ferretdb')}/`,
      `--state-dir=${dir('ferretdb-state')}`,
      '--telemetry=disable',
      '--log-level=warn',
      '--debug-addr=-',
      `--listen-addr=127.0.0.1:${port}`,
    ],
    url: `mongodb://127.0.0.1:${port}`,
    ready: listening(port),
  }));
}

/** NATS with JetStream (file storage under the data folder). */
export function startNats(opts: ServerOptions & { users?: NatsUser[] } = {}): Promise<RunningServer> {
  return launch('nats', opts, ({ port, dir }) => {
    const args = ['-js', '-sd', dir('nats'), '-a', '127.0.0.1', '-p', String(port)];
    if (opts.users?.length) {
      // An authorization block: only the listed users connect (the flags above still apply).
      const conf = path.join(dir('nats-conf'), 'nats.conf');
      fs.writeFileSync(conf, natsAuthorization(opts.users), { mode: 0o600 });
      args.unshift('-c', conf);
    }
    return { cmd: which('nats-server'), args, url: `nats://127.0.0.1:${port}`, ready: listening(port) };
  });
}

/** A NATS user: one per service, plus one for tools and tests. */
export interface NatsUser {
  user: string;
  password: string;
}

/** One random password per name, for a stack's NATS users. */
export const natsUsers = (names: readonly string[]): NatsUser[] =>
  names.map((user) => ({ user, password: crypto.randomBytes(18).toString('base64url') }));

/** nats-server's `authorization` block for these users (JSON strings are valid in its config). */
export const natsAuthorization = (users: NatsUser[]) =>
  `authorization {\n  users = [\n${users
    .map((u) => `    { user: ${JSON.stringify(u.user)}, password: ${JSON.stringify(u.password)} }`)
    .join('\n')}\n  ]\n}\n`;

/** `nats://user:password@host:port`: the form the kit's clients accept (natsConnectOptions). */
export const natsUrlFor = (url: string, u: NatsUser) =>
  url.replace('://', `://${encodeURIComponent(u.user)}:${encodeURIComponent(u.password)}@`);

export function startRedis(opts: ServerOptions = {}): Promise<RunningServer> {
  return launch('redis', opts, ({ port, dir }) => ({
    cmd: which('redis-server'),
    args: [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir('redis'),
      '--save',
      '60 1',
      '--appendonly',
      'no',
    ],
    url: `redis://127.0.0.1:${port}`,
    ready: listening(port),
  }));
}

/**
 * stripe-mock: Stripe's API stand-in (its OpenAPI spec and fixtures), for the billing tests'
 * Checkout and subscription calls. `url` is what auth's STRIPE_API_URL takes.
 */
export function startStripeMock(opts: ServerOptions = {}): Promise<RunningServer> {
  return launch('stripe-mock', opts, ({ port }) => ({
    cmd: which('stripe-mock'),
    args: ['-http-addr', `127.0.0.1:${port}`],
    url: `http://127.0.0.1:${port}`,
    ready: listening(port),
  }));
}

/** MailDev: an SMTP server on `port` that keeps every mail for the tests to read over HTTP (`url`). */
export async function startMailDev(
  opts: ServerOptions & { webPort?: number } = {},
): Promise<RunningServer & { smtpPort: number }> {
  const webPort = opts.webPort ?? (await freePort());
  const server = await launch('maildev', opts, ({ port }) => ({
    cmd: process.execPath,
    args: [
      require.resolve('maildev/bin/maildev'),
      '--ip',
      '127.0.0.1',
      '--smtp',
      String(port),
      '--web',
      String(webPort),
      '--web-ip',
      '127.0.0.1',
    ],
    url: `http://127.0.0.1:${webPort}`,
    ready: httpOk(`http://127.0.0.1:${webPort}/email`),
  }));
  return { ...server, smtpPort: server.port };
}

/** The local run's MinIO credentials; tests may pass their own. */
export const MINIO_LOCAL_CREDENTIALS = { accessKey: 'coffer-local', secretKey: 'coffer-local-secret' };

/** MinIO: a real S3 API for the storage service's S3 backend. */
export async function startMinio(
  opts: ServerOptions & {
    consolePort?: number;
    credentials?: { accessKey: string; secretKey: string };
  } = {},
): Promise<RunningServer & { accessKey: string; secretKey: string }> {
  const { accessKey, secretKey } = opts.credentials ?? MINIO_LOCAL_CREDENTIALS;
  const consolePort = opts.consolePort ?? (await freePort());
  const server = await launch('minio', opts, ({ port, dir }) => ({
    cmd: which('minio'),
    args: [
      'server',
      dir('minio'),
      '--address',
      `127.0.0.1:${port}`,
      '--console-address',
      `127.0.0.1:${consolePort}`,
      '--quiet',
    ],
    env: { MINIO_ROOT_USER: accessKey, MINIO_ROOT_PASSWORD: secretKey },
    url: `http://127.0.0.1:${port}`,
    ready: httpOk(`http://127.0.0.1:${port}/minio/health/live`),
  }));
  return { ...server, accessKey, secretKey };
}

/** The fixed ports of the local run, or the free ones the tests' stack picked. */
export interface ServerPorts {
  nats: number;
  mongo: number;
  redis: number;
  smtp: number;
  mailWeb: number;
}

/** Process names of the servers (the stack stops them after the services). */
export const SERVER_NAMES = ['nats', 'ferretdb', 'redis', 'maildev', 'minio'];

/** Every server the stack needs, in parallel, data and logs under `dataDir`; all or none. */
export async function startServers(
  dataDir: string,
  ports: ServerPorts,
  opts: { natsUsers?: NatsUser[] } = {},
): Promise<Proc[]> {
  for (const [name, port] of Object.entries(ports)) {
    if (await listening(port)())
      throw new Error(`port ${port} (${name}) is already in use; is Coffer already running?`);
  }
  const where = { dataDir, logDir: path.join(dataDir, 'logs') };
  const started = await Promise.allSettled([
    startNats({ ...where, port: ports.nats, users: opts.natsUsers }),
    startFerretDb({ ...where, port: ports.mongo }),
    startRedis({ ...where, port: ports.redis }),
    startMailDev({ ...where, port: ports.smtp, webPort: ports.mailWeb }),
  ]);
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(servers.map((s) => s.stop()));
    throw failed.reason;
  }
  return servers.map((s) => s.proc);
}
