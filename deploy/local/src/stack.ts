import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freePort, startProcess, waitFor, type Proc } from './processes.js';
import { localServiceKeys, publicKeysOf } from './service-keys.js';
import {
  natsUrlFor,
  natsUsers,
  NATS_SYSTEM_USER,
  serverUsers,
  startMinio,
  startServers,
  SERVER_NAMES,
  urlWithUser,
  type NatsUser,
  type ServerPorts,
  type ServerUser,
} from './servers.js';

/** Coffer's services behind the gateway; each is `node services/<name>/dist/main.js`. */
export type BackendService = 'auth' | 'notification' | 'audit' | 'storage' | 'kb' | 'backup-orchestrator';

export interface StackOptions {
  repoRoot: string;
  dataDir: string;
  /** Fixed well-known ports for the local run; tests ask the OS for free ones. */
  ports: 'local' | 'free';
  gatewayPort?: number;
  /** How many gateway replicas to start (tests of the Socket.IO fan-out use two). */
  gateways?: number;
  /** How many orchestrator replicas to start (the scheduler test uses two). */
  orchestrators?: number;
  /** Where storage keeps blobs: its filesystem backend (default) or S3 on a local MinIO. */
  storageBackend?: 'fs' | 's3';
  /** MinIO's port (free otherwise): a test can put a proxy in front of it before storage starts. */
  s3Port?: number;
  /** The folder served under /downloads; default agent/dist/downloads (built by `npm run build`). */
  agentDownloadsDir?: string;
  /** Where a service's package is (default services/<name> of repoRoot): the production-tree
   * test points these at trees built as the images are (deploy/ci/prod-tree.sh). */
  serviceDirs?: Partial<Record<string, string>>;
  env?: NodeJS.ProcessEnv;
}

export interface Stack {
  urls: {
    app: string;
    gateways: string[];
    mailWeb: string;
    s3?: string;
    nats: string;
    /** NATS's monitoring endpoints (/varz, /jsz, …). */
    natsMonitor: string;
    mongo: string;
    redis: string;
  };
  /** Each service's gRPC address (host:port). */
  grpc: Record<BackendService, string>;
  /** Where the services' key pairs are (`<name>.key`, `<name>.pub`). */
  serviceKeysDir: string;
  env: NodeJS.ProcessEnv;
  procs: Proc[];
  logDir: string;
  stop(): Promise<void>;
}

/** Every service process: each has its own NATS user and gRPC key pair. */
const SERVICES = [
  'auth',
  'notification',
  'audit',
  'storage',
  'kb',
  'backup-orchestrator',
  'gateway',
] as const;

const LOCAL: ServerPorts = { nats: 4222, redis: 6379, smtp: 1025, mailWeb: 1080 };
const LOCAL_GRPC: Record<BackendService, number> = {
  auth: 50051,
  notification: 50052,
  audit: 50053,
  'backup-orchestrator': 50054,
  storage: 50055,
  kb: 50056,
};

function readyz(port: number) {
  return () =>
    new Promise<boolean>((resolve) => {
      http
        .get(`http://127.0.0.1:${port}/readyz`, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        })
        .on('error', () => resolve(false));
    });
}

/** Starts the servers, then every service, then the gateway(s); resolves once all are ready. */
export async function startStack(opts: StackOptions): Promise<Stack> {
  const local = opts.ports === 'local';
  const ports: ServerPorts = local
    ? LOCAL
    : {
        nats: await freePort(),
        redis: await freePort(),
        smtp: await freePort(),
        mailWeb: await freePort(),
      };
  const grpc: Record<BackendService, number> = local
    ? LOCAL_GRPC
    : {
        auth: await freePort(),
        notification: await freePort(),
        audit: await freePort(),
        'backup-orchestrator': await freePort(),
        storage: await freePort(),
        kb: await freePort(),
      };
  const gatewayCount = opts.gateways ?? 1;
  const gatewayPorts: number[] = [];
  for (let i = 0; i < gatewayCount; i++) {
    gatewayPorts.push(i === 0 && opts.gatewayPort !== undefined ? opts.gatewayPort : await freePort());
  }
  const logDir = path.join(opts.dataDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });

  const s3 = opts.storageBackend === 's3';
  // NATS takes only these users: one per service, and `client` for tools and tests (stack.urls.nats).
  // `ops`: read-only, for the runbook's `nats` commands (its settings in nats-ops.env, below);
  // `sys`: the system account's, for server-wide reports (nats-sys.env).
  const nats = natsUsers([...SERVICES, 'client', 'ops', NATS_SYSTEM_USER]);
  const natsUser = (name: string) => nats.find((u) => u.user === name) as NatsUser;
  // Redis likewise: the gateway (the only service that uses it) and `client` (stack.urls.redis).
  const redisUsers = serverUsers(['gateway', 'client']);
  const redisUser = (name: string) => redisUsers.find((u) => u.user === name) as ServerUser;
  // The local run keeps its data; a test stack's is thrown away.
  const servers = await startServers(opts.dataDir, ports, { natsUsers: nats, redisUsers, durable: local });
  const procs: Proc[] = servers.procs;
  let minio: Awaited<ReturnType<typeof startMinio>> | undefined;
  if (s3) {
    minio = await startMinio({
      dataDir: opts.dataDir,
      logDir,
      ...(local ? { port: 9000, consolePort: 9001 } : opts.s3Port ? { port: opts.s3Port } : {}),
    }).catch(async (err: unknown) => {
      await Promise.all(procs.map((p) => p.stop()));
      throw err;
    });
    procs.push(minio.proc);
  }
  const appUrl = `http://127.0.0.1:${gatewayPorts[0]}`;
  // Each service signs its gRPC calls with its own key; every service knows all public keys.
  const serviceKeys = localServiceKeys(opts.dataDir, SERVICES);
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'development',
    NATS_URL: `nats://127.0.0.1:${ports.nats}`,
    MONGODB_URI: servers.mongoUrl,
    REDIS_URL: urlWithUser(`redis://127.0.0.1:${ports.redis}`, redisUser('gateway')),
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(ports.smtp),
    PUBLIC_URL: appUrl,
    AUTH_GRPC: `127.0.0.1:${grpc.auth}`,
    NOTIFICATION_GRPC: `127.0.0.1:${grpc.notification}`,
    AUDIT_GRPC: `127.0.0.1:${grpc.audit}`,
    ORCHESTRATOR_GRPC: `127.0.0.1:${grpc['backup-orchestrator']}`,
    STORAGE_GRPC: `127.0.0.1:${grpc.storage}`,
    KB_GRPC: `127.0.0.1:${grpc.kb}`,
    SERVICE_PUBLIC_KEYS: publicKeysOf(serviceKeys),
    ...(minio
      ? {
          STORAGE_BACKEND: 's3',
          S3_ENDPOINT: minio.url,
          S3_BUCKET: 'coffer-backups',
          S3_ACCESS_KEY_ID: minio.accessKey,
          S3_SECRET_ACCESS_KEY: minio.secretKey,
        }
      : { STORAGE_BACKEND: 'fs', STORAGE_DIR: path.join(opts.dataDir, 'storage') }),
    WEB_DIST: path.join(opts.repoRoot, 'web/dist'),
    AGENT_DOWNLOADS_DIR: opts.agentDownloadsDir ?? path.join(opts.repoRoot, 'agent/dist/downloads'),
    ...opts.env,
  };
  // A real MongoDB replaces FerretDB when the caller sets MONGODB_URI.
  if (process.env.MONGODB_URI) env.MONGODB_URI = process.env.MONGODB_URI;

  const serviceDir = (script: string) =>
    opts.serviceDirs?.[script] ?? path.join(opts.repoRoot, 'services', script);
  // Production starts build no index and wait for their data migrations: run each database's
  // migrate step first, as compose and the Kubernetes Job do (docs/operations.md, "Upgrades").
  const migrate = (script: BackendService) =>
    new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        [path.join(serviceDir(script), 'dist/migrate.js')],
        { cwd: serviceDir(script), env },
        (err, _out, stderr) =>
          err ? reject(new Error(`${script} migrate: ${stderr || err.message}`)) : resolve(),
      );
    });

  const startService = async (name: string, script: BackendService | 'gateway', extra: NodeJS.ProcessEnv) => {
    const opsPort = await freePort();
    const p = startProcess(name, process.execPath, [path.join(serviceDir(script), 'dist/main.js')], {
      cwd: opts.serviceDirs?.[script],
      logDir,
      env: {
        ...env,
        NATS_USER: script,
        NATS_PASSWORD: natsUser(script).password,
        SERVICE_PRIVATE_KEY_FILE: serviceKeys[script]!.privateKeyFile,
        ...extra,
        OPS_PORT: String(opsPort),
      },
    });
    p.ready = readyz(opsPort);
    procs.push(p);
    // COFFER_READY_TIMEOUT_MS: a machine busy with other builds may need longer than a minute.
    await waitFor(name, p.ready, Number(process.env.COFFER_READY_TIMEOUT_MS) || 60_000, p);
  };

  const stop = async () => {
    // Services first (they drain work into the servers), then the servers.
    const services = procs.filter((p) => !SERVER_NAMES.includes(p.name));
    await Promise.all(services.map((p) => p.stop()));
    await Promise.all(procs.filter((p) => !services.includes(p)).map((p) => p.stop()));
  };

  try {
    if (env.NODE_ENV === 'production')
      await Promise.all(SERVICES.filter((s) => s !== 'gateway').map(migrate));
    await Promise.all(
      (['auth', 'notification', 'audit', 'storage', 'kb'] as const).map((name) =>
        startService(name, name, { GRPC_LISTEN: `127.0.0.1:${grpc[name]}` }),
      ),
    );
    // Replicas share one gRPC address in production behind a Service; here the first one serves
    // gRPC for the gateway and the others only run the scheduler and consumers.
    const orchestrators = opts.orchestrators ?? 1;
    await Promise.all(
      Array.from({ length: orchestrators }, (_, i) =>
        startService(
          orchestrators > 1 ? `backup-orchestrator-${i + 1}` : 'backup-orchestrator',
          'backup-orchestrator',
          {
            GRPC_LISTEN: `127.0.0.1:${i === 0 ? grpc['backup-orchestrator'] : 0}`,
          },
        ),
      ),
    );
    await Promise.all(
      gatewayPorts.map((port, i) =>
        startService(gatewayCount > 1 ? `gateway-${i + 1}` : 'gateway', 'gateway', { PORT: String(port) }),
      ),
    );
  } catch (err) {
    await stop();
    throw err;
  }

  // The `nats` CLI's settings (the variables it reads) for the runbook (docs/runbook.md, "NATS by
  // hand"): the read-only `ops` user, `client` for replaying and purging, `sys` for server reports. Owner-only, like
  // local-secrets.json beside them; written anew at each start with the new passwords.
  for (const [file, user] of [
    ['nats-ops.env', natsUser('ops')],
    ['nats-admin.env', natsUser('client')],
    ['nats-sys.env', natsUser(NATS_SYSTEM_USER)],
  ] as const) {
    const text = `NATS_URL=${env.NATS_URL}\nNATS_USER=${user.user}\nNATS_PASSWORD=${user.password}\nNATS_MONITOR=${servers.natsMonitorUrl}\n`;
    fs.writeFileSync(path.join(opts.dataDir, file), text, { mode: 0o600 });
  }

  return {
    urls: {
      app: appUrl,
      gateways: gatewayPorts.map((p) => `http://127.0.0.1:${p}`),
      mailWeb: `http://127.0.0.1:${ports.mailWeb}`,
      s3: minio?.url,
      // With the tools' credentials in it (natsConnectOptions takes them out again).
      nats: natsUrlFor(env.NATS_URL!, natsUser('client')),
      natsMonitor: servers.natsMonitorUrl,
      mongo: env.MONGODB_URI!,
      redis: urlWithUser(`redis://127.0.0.1:${ports.redis}`, redisUser('client')),
    },
    grpc: {
      auth: env.AUTH_GRPC!,
      notification: env.NOTIFICATION_GRPC!,
      audit: env.AUDIT_GRPC!,
      'backup-orchestrator': env.ORCHESTRATOR_GRPC!,
      storage: env.STORAGE_GRPC!,
      kb: env.KB_GRPC!,
    },
    serviceKeysDir: path.join(opts.dataDir, 'service-keys'),
    env,
    procs,
    logDir,
    stop,
  };
}
