import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  freePort,
  httpOk,
  listening,
  listeningOn,
  startProcess,
  waitFor,
  which,
  type Proc,
} from './processes.js';

// The real servers Coffer needs (docs/operations.md, "Running locally"), each a local process: the local run and the
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
  spec: (ctx: { port: number; dataDir: string; dir: (sub: string) => string }) => {
    cmd: string;
    args: string[];
    env?: NodeJS.ProcessEnv;
    url: string;
    ready: () => Promise<boolean>;
    /** Before every start, restarts included. */
    beforeStart?: () => void;
    /** After the server stopped for good. */
    afterStop?: () => void;
    /** What stop() sends first (default SIGTERM). */
    stopSignal?: NodeJS.Signals;
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
  const s = spec({ port, dataDir, dir });
  const proc = startProcess(name, s.cmd, s.args, {
    logDir: opts.logDir ?? path.join(dataDir, 'logs'),
    env: s.env,
    beforeStart: s.beforeStart,
    stopSignal: s.stopSignal,
    // The stack stops its servers through their processes: clean-up belongs to the process' stop.
    afterStop: () => {
      s.afterStop?.();
      if (scratch) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  });
  proc.ready = s.ready;
  const stop = () => proc.stop();
  try {
    await waitFor(name, s.ready, opts.timeoutMs ?? 60_000, proc);
  } catch (err) {
    await stop();
    throw err;
  }
  return { name, port, url: s.url, proc, stop };
}

/**
 * FerretDB's storage: PostgreSQL (the default), where FerretDB runs equality filters in SQL and
 * our build answers them from indexes (docs/architecture.md, "The database"), or SQLite, where every filter but `{_id}`
 * reads the whole collection. `COFFER_FERRETDB_BACKEND` chooses for the local run and the tests.
 */
export type FerretDbBackend = 'postgresql' | 'sqlite';

export function ferretDbBackend(env: NodeJS.ProcessEnv = process.env): FerretDbBackend {
  const v = env.COFFER_FERRETDB_BACKEND || 'postgresql';
  if (v !== 'postgresql' && v !== 'sqlite')
    throw new Error(`COFFER_FERRETDB_BACKEND is "${v}": set it to postgresql (the default) or sqlite`);
  return v;
}

export interface FerretDbOptions extends ServerOptions {
  /**
   * Coffer's own FerretDB: no port at all, only a Unix socket in a folder that only this OS user
   * may enter (neither backend checks users), so another local user's connect fails with EACCES.
   * Without it FerretDB listens on a loopback port: the customers' MongoDB in agent and pipeline
   * tests, and the services' store tests.
   */
  unixSocket?: boolean;
  /** Default: ferretDbBackend(). */
  backend?: FerretDbBackend;
  /** PostgreSQL flushes every commit to disk (the local run); tests' throwaway data need not. */
  durable?: boolean;
}

/** A running FerretDB; `postgres` is its PostgreSQL when that is its backend. */
export type RunningFerretDb = RunningServer & { postgres?: RunningServer };

/** FerretDB on PostgreSQL (started first, in the same data folder) or on SQLite. */
export async function startFerretDb(opts: FerretDbOptions = {}): Promise<RunningFerretDb> {
  if ((opts.backend ?? ferretDbBackend()) === 'sqlite')
    return launchFerretDb(opts, (dir) => ['--handler=sqlite', `--sqlite-url=file:${dir('ferretdb')}/`]);
  // Both servers live in one folder: a temporary one is removed after both stopped.
  const scratch = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-ferretdb-'));
  const removeScratch = () => {
    if (scratch) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const where = { dataDir, logDir: opts.logDir, timeoutMs: opts.timeoutMs };
  let postgres: RunningServer;
  try {
    postgres = await startPostgres({ ...where, durable: opts.durable });
  } catch (err) {
    removeScratch();
    throw err;
  }
  let ferret: RunningServer;
  try {
    ferret = await launchFerretDb({ ...opts, ...where }, () => [
      '--handler=postgresql',
      `--postgresql-url=${postgres.url}`,
    ]);
  } catch (err) {
    await postgres.stop();
    removeScratch();
    throw err;
  }
  return {
    ...ferret,
    postgres,
    async stop() {
      await ferret.stop();
      await postgres.stop();
      removeScratch();
    },
  };
}

function launchFerretDb(
  opts: FerretDbOptions,
  backendArgs: (dir: (sub: string) => string) => string[],
): Promise<RunningServer> {
  return launch('ferretdb', opts, ({ port, dataDir, dir }) => {
    const common = {
      cmd: which('ferretdb'),
      args: [
        ...backendArgs(dir),
        `--state-dir=${dir('ferretdb-state')}`,
        '--telemetry=disable',
        '--log-level=warn',
        '--debug-addr=-',
      ],
    };
    if (!opts.unixSocket) {
      return {
        ...common,
        args: [...common.args, `--listen-addr=127.0.0.1:${port}`],
        url: `mongodb://127.0.0.1:${port}`,
        ready: listening(port),
      };
    }
    const folder = privateSocketFolder(dataDir, 'ferretdb');
    const socket = path.join(folder.path, 'ferretdb.sock');
    return {
      ...common,
      // An empty TCP address turns the TCP listener off.
      args: [...common.args, '--listen-addr=', `--listen-unix=${socket}`],
      // The drivers (and mongodump) take a socket path, URL-encoded, as the host.
      url: `mongodb://${encodeURIComponent(socket)}`,
      ready: listeningOn(socket),
      // A killed FerretDB leaves its socket file, and Go's listener does not bind over one.
      beforeStart: () => fs.rmSync(socket, { force: true }),
      afterStop: folder.remove,
    };
  });
}

/** The port number in PostgreSQL's socket file name (`.s.PGSQL.<port>`); it opens no TCP port. */
const PG_SOCKET_PORT = 5432;

/**
 * PostgreSQL, data in `<dataDir>/postgres` (made by initdb on the first start), listening on no
 * TCP port, only on a Unix socket in a private folder (as FerretDB's: local connections are
 * trusted, so the folder's mode is the lock). `url` is the connection string FerretDB takes.
 */
export function startPostgres(opts: ServerOptions & { durable?: boolean } = {}): Promise<RunningServer> {
  return launch('postgres', opts, ({ dataDir }) => {
    const data = path.join(dataDir, 'postgres');
    if (!fs.existsSync(path.join(data, 'PG_VERSION'))) initdb(data);
    const folder = privateSocketFolder(dataDir, 'postgres');
    const socket = path.join(folder.path, `.s.PGSQL.${PG_SOCKET_PORT}`);
    const settings = {
      listen_addresses: '',
      unix_socket_directories: folder.path,
      port: String(PG_SOCKET_PORT),
      // Tests' data is thrown away: no waiting for the disk.
      ...(opts.durable ? {} : { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }),
    };
    const [cmd, args] = asNonRoot(which('postgres'), [
      '-D',
      data,
      ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    ]);
    return {
      cmd,
      args,
      url: `postgres://postgres@/postgres?host=${encodeURIComponent(folder.path)}`,
      ready: postgresReady(data, socket),
      // Fast shutdown: SIGTERM would wait for FerretDB's pooled connections to end.
      stopSignal: 'SIGINT',
      afterStop: folder.remove,
    };
  });
}

/** postmaster.pid's status line says `ready` (not `starting`) and the socket takes connections. */
function postgresReady(data: string, socket: string) {
  return async () => {
    let status = '';
    try {
      status = fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[7]?.trim() ?? '';
    } catch {
      return false;
    }
    return status === 'ready' && (await listeningOn(socket)());
  };
}

/** A new PostgreSQL cluster: superuser `postgres`, UTF-8, no locale (sorting is FerretDB's). */
function initdb(data: string) {
  const [cmd, args] = asNonRoot(which('initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) {
    fs.rmSync(data, { recursive: true, force: true });
    throw new Error(`initdb failed for ${data}: ${(r.stderr || r.error?.message || '').trim()}`);
  }
}

/**
 * PostgreSQL refuses to run as root. As root, it runs in a user namespace of its own where it is
 * `nobody` while its files stay root's: no system user to create, and no folder above the data
 * (such as a checkout under /root) needs to be opened to anyone else.
 */
function asNonRoot(bin: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [bin, args];
  return [which('unshare'), ['--user', '--map-user=65534', '--map-group=65534', bin, ...args]];
}

/** The longest socket path that fits sockaddr_un's sun_path (108 bytes with its NUL) everywhere. */
const MAX_SOCKET_PATH = 100;

/**
 * A folder for a server's Unix socket, mode 0700 and owned by this OS user: `<dataDir>/<name>-socket`
 * when a socket path in it fits sun_path and has no capital letter (the Go driver of mongodump and
 * mongorestore lower-cases the host, socket paths included), else a fresh short one under the
 * temporary folder (or /tmp), which `remove` deletes.
 */
function privateSocketFolder(dataDir: string, name: string): { path: string; remove: () => void } {
  const usable = (folder: string) => {
    const socket = path.join(folder, `${name}.sock`);
    return Buffer.byteLength(socket) <= MAX_SOCKET_PATH && socket === socket.toLowerCase();
  };
  const inData = path.join(dataDir, `${name}-socket`);
  let folder = inData;
  if (usable(inData)) {
    fs.mkdirSync(inData, { recursive: true, mode: 0o700 });
  } else {
    const parent = usable(path.join(os.tmpdir(), 'coffer-0123456789ab')) ? os.tmpdir() : '/tmp';
    // mkdtemp's names have capitals: a lower-case one, made exclusively (mkdir fails if it exists).
    for (;;) {
      folder = path.join(parent, `coffer-${crypto.randomBytes(6).toString('hex')}`);
      try {
        fs.mkdirSync(folder, { mode: 0o700 });
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
  }
  // mkdir keeps an existing folder's mode and owner: both are checked, not assumed.
  fs.chmodSync(folder, 0o700);
  const owner = fs.statSync(folder).uid;
  if (typeof process.getuid === 'function' && owner !== process.getuid())
    throw new Error(`${folder} belongs to another user (uid ${owner}); remove it and start again`);
  return { path: folder, remove: () => fs.rmSync(folder, { recursive: true, force: true }) };
}

/**
 * NATS with JetStream (file storage under the data folder), and its monitoring endpoints
 * (`/varz`, `/jsz`, …) on `monitorUrl`, on the loopback address like the client port.
 */
export async function startNats(
  opts: ServerOptions & { users?: NatsUser[]; monitorPort?: number } = {},
): Promise<RunningServer & { monitorUrl: string }> {
  const monitorPort = opts.monitorPort ?? (await freePort());
  const server = await launch('nats', opts, ({ port, dir }) => {
    const args = [
      '-js',
      '-sd',
      dir('nats'),
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '-m',
      String(monitorPort),
    ];
    if (opts.users?.length) {
      // An authorization block: only the listed users connect (the flags above still apply).
      const conf = path.join(dir('nats-conf'), 'nats.conf');
      fs.writeFileSync(conf, natsAuthorization(opts.users, ['ops']), { mode: 0o600 });
      args.unshift('-c', conf);
    }
    return { cmd: which('nats-server'), args, url: `nats://127.0.0.1:${port}`, ready: listening(port) };
  });
  return { ...server, monitorUrl: `http://127.0.0.1:${monitorPort}` };
}

/** A user of a server (NATS, Redis): one per service, plus `client` for tools and tests. */
export interface ServerUser {
  user: string;
  password: string;
}

/**
 * What the read-only `ops` NATS user may ask JetStream (docs/runbook.md, "NATS by hand"): list and
 * describe streams and consumers, and read single messages, nothing that changes or consumes.
 */
export const NATS_READ_ONLY = {
  publish: [
    '$JS.API.INFO',
    '$JS.API.STREAM.NAMES',
    '$JS.API.STREAM.LIST',
    '$JS.API.STREAM.INFO.*',
    '$JS.API.STREAM.MSG.GET.*',
    '$JS.API.DIRECT.GET.>',
    '$JS.API.CONSUMER.NAMES.*',
    '$JS.API.CONSUMER.LIST.*',
    '$JS.API.CONSUMER.INFO.*.*',
  ],
  subscribe: ['_INBOX.>'],
};
export type NatsUser = ServerUser;

/** One random password per name, for a stack's server users. */
export const serverUsers = (names: readonly string[]): ServerUser[] =>
  names.map((user) => ({ user, password: crypto.randomBytes(18).toString('base64url') }));
export const natsUsers = serverUsers;

/** The NATS user of the system account (server-wide reports: `nats server report jetstream`). */
export const NATS_SYSTEM_USER = 'sys';

/**
 * nats-server's `authorization` block for these users (JSON strings are valid in its config); a
 * user named NATS_SYSTEM_USER goes into the system account `SYS` instead, which sees every
 * server's reports and no application subject.
 */
export const natsAuthorization = (all: NatsUser[], readOnly: readonly string[] = []) => {
  const system = all.find((u) => u.user === NATS_SYSTEM_USER);
  const users = all.filter((u) => u !== system);
  const sys = system
    ? `accounts {\n  SYS: { users: [ { user: ${JSON.stringify(system.user)}, password: ${JSON.stringify(system.password)} } ] }\n}\nsystem_account: SYS\n`
    : '';
  return `authorization {\n  users = [\n${users
    .map((u) => {
      const perms = readOnly.includes(u.user)
        ? `, permissions: { publish: { allow: ${JSON.stringify(NATS_READ_ONLY.publish)} }, subscribe: { allow: ${JSON.stringify(NATS_READ_ONLY.subscribe)} } }`
        : '';
      return `    { user: ${JSON.stringify(u.user)}, password: ${JSON.stringify(u.password)}${perms} }`;
    })
    .join('\n')}\n  ]\n}\n${sys}`;
};

/** `scheme://user:password@host:port`: the form the kit's NATS and Redis clients accept. */
export const urlWithUser = (url: string, u: ServerUser) =>
  url.replace('://', `://${encodeURIComponent(u.user)}:${encodeURIComponent(u.password)}@`);
export const natsUrlFor = urlWithUser;

/**
 * What each Redis user may do. The gateway: its rate-limit counters and locks (keys under
 * `coffer:`) and the Socket.IO Redis adapter's channels (`socket.io#<namespace>#...` for room
 * broadcasts, which it subscribes to by pattern, and its request/response channels); nothing
 * else, so it can neither read other keys nor reconfigure the server. `client` (tools and
 * tests): everything.
 */
export const REDIS_RULES: Record<string, string> = {
  gateway: [
    'resetkeys ~coffer:*',
    // Patterns are matched literally on PSUBSCRIBE: one per Socket.IO namespace of the gateway.
    'resetchannels &socket.io#/#* &socket.io#/agents#* &socket.io-request#* &socket.io-response#*',
    '-@all +@connection -@admin -@dangerous',
    '+multi +exec +discard +get +incr +expire +del +set',
    '+publish +subscribe +unsubscribe +psubscribe +punsubscribe +pubsub|numsub',
  ].join(' '),
  client: '~* &* +@all',
};

/**
 * Redis's ACL file: `default` (every connection before AUTH) off, each user with its password's
 * SHA-256 (the file holds no password) and its rules from REDIS_RULES.
 */
export function redisAcl(users: ServerUser[]): string {
  const lines = users.map((u) => {
    const rules = REDIS_RULES[u.user];
    if (!rules) throw new Error(`no Redis rules for user ${u.user}`);
    const hash = crypto.createHash('sha256').update(u.password).digest('hex');
    return `user ${u.user} on #${hash} ${rules}`;
  });
  return ['user default off resetkeys resetchannels -@all', ...lines, ''].join('\n');
}

/**
 * Redis, which takes only the given users (a `client` user when none are given). `url` carries
 * the `client` user's credentials when there is one.
 */
export async function startRedis(
  opts: ServerOptions & { users?: ServerUser[] } = {},
): Promise<RunningServer> {
  const users = opts.users ?? serverUsers(['client']);
  const server = await launch('redis', opts, ({ port, dir }) => {
    const aclFile = path.join(dir('redis-conf'), 'users.acl');
    fs.writeFileSync(aclFile, redisAcl(users), { mode: 0o600 });
    return {
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
        '--aclfile',
        aclFile,
      ],
      url: `redis://127.0.0.1:${port}`,
      ready: listening(port),
    };
  });
  const client = users.find((u) => u.user === 'client');
  return client ? { ...server, url: urlWithUser(server.url, client) } : server;
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

/** MinIO: a real S3 API for the storage service's S3 backend; root credentials made here unless given. */
export async function startMinio(
  opts: ServerOptions & {
    consolePort?: number;
    credentials?: { accessKey: string; secretKey: string };
  } = {},
): Promise<RunningServer & { accessKey: string; secretKey: string }> {
  const { accessKey, secretKey } = opts.credentials ?? {
    accessKey: `coffer-${crypto.randomBytes(6).toString('hex')}`,
    secretKey: crypto.randomBytes(24).toString('base64url'),
  };
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
  redis: number;
  smtp: number;
  mailWeb: number;
}

/** Process names of the servers (the stack stops them after the services). */
export const SERVER_NAMES = ['nats', 'postgres', 'ferretdb', 'redis', 'maildev', 'minio'];

/**
 * Every server the stack needs, in parallel, data and logs under `dataDir`; all or none. FerretDB
 * listens on its private Unix socket (`mongoUrl`); `durable` makes its PostgreSQL flush commits.
 */
export async function startServers(
  dataDir: string,
  ports: ServerPorts,
  opts: { natsUsers?: NatsUser[]; redisUsers?: ServerUser[]; durable?: boolean } = {},
): Promise<{ procs: Proc[]; mongoUrl: string; natsMonitorUrl: string }> {
  for (const [name, port] of Object.entries(ports)) {
    if (await listening(port)())
      throw new Error(`port ${port} (${name}) is already in use; is Coffer already running?`);
  }
  const where = { dataDir, logDir: path.join(dataDir, 'logs') };
  const ferretDb = startFerretDb({ ...where, unixSocket: true, durable: opts.durable });
  const started = await Promise.allSettled([
    startNats({ ...where, port: ports.nats, users: opts.natsUsers }),
    ferretDb,
    startRedis({ ...where, port: ports.redis, users: opts.redisUsers }),
    startMailDev({ ...where, port: ports.smtp, webPort: ports.mailWeb }),
  ]);
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(servers.map((s) => s.stop()));
    throw failed.reason;
  }
  const { postgres, url: mongoUrl } = await ferretDb;
  const nats = started[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof startNats>>>;
  return {
    procs: [...servers.map((s) => s.proc), ...(postgres ? [postgres.proc] : [])],
    mongoUrl,
    natsMonitorUrl: nats.value.monitorUrl,
  };
}
