// End-to-end harness: a "customer" FerretDB apart from the service's database, the real
// `coffer-agent` binary configured with a test user's API key and run as a child process, and the
// API calls that drive backups and restores through the whole stack.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, type Collection, type Filter } from 'mongodb';
import { startFerretDb } from '@coffer/local-stack';
import { TEST_STACK_ENV } from '../stack-env';
import { adminToken, api, baseUrl, eventually, planId, type TestUser } from '../helpers';

export const REPO = path.resolve(__dirname, '../../..');
export const AGENT_BIN = path.join(REPO, 'agent/bin/coffer-agent');

/** The environment of a test file's own stack: the shared test secrets and admin, clients posing by X-Forwarded-For. */
export const OWN_STACK_ENV = {
  ...TEST_STACK_ENV,
  LOG_LEVEL: 'info',
  TRUST_PROXY: 'loopback',
};

const HOW_TO_GET =
  'Run deploy/local/bootstrap.sh (it builds ferretdb, mongodump and mongorestore into ~/.cache/coffer/bin) and put that directory on PATH.';

/** Fails (never skips) when something the pipeline tests need is missing. */
export function requirePrerequisites(): void {
  const missing = ['ferretdb', 'mongodump', 'mongorestore', 'python3'].filter(
    (n) => spawnSync('sh', ['-c', 'command -v "$1"', 'sh', n]).status !== 0,
  );
  if (missing.length) throw new Error(`${missing.join(', ')} not found on PATH. ${HOW_TO_GET}`);
  if (!fs.existsSync(path.join(REPO, 'agent/dist/cli/main.js')))
    throw new Error('agent/dist is missing: build first with `npx tsc -b tsconfig.json`.');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanups: Array<() => Promise<void>> = [];

/** Stops every agent and customer database this test file started (call in afterAll). */
export async function cleanupAll(): Promise<void> {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
}

// ---------------------------------------------------------------------------------------------
// The customer's database server: its own FerretDB, outside the service's data folder.

export interface CustomerDb {
  port: number;
  dir: string;
  client: MongoClient;
  /** Connection string for `db` (PLAIN credentials are accepted and ignored by FerretDB/SQLite). */
  uri(db: string, credentials?: { user: string; password: string }): string;
  /**
   * Freezes the database server (SIGSTOP) until `resume`: whatever talks to it waits where it is,
   * so a fault test can act while a restore is exactly half-way, however fast the machine is.
   */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

export async function startCustomerDb(): Promise<CustomerDb> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-e2e-customer-'));
  let server: Awaited<ReturnType<typeof startFerretDb>>;
  try {
    // SQLite: the customers' connection strings carry users, which FerretDB on PostgreSQL would
    // log in to PostgreSQL with; on SQLite, as on a MongoDB without access control, any user goes.
    server = await startFerretDb({ dataDir: dir, timeoutMs: 30_000, backend: 'sqlite' });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const { port } = server;
  const client = await MongoClient.connect(`${server.url}/`);
  const db: CustomerDb = {
    port,
    dir,
    client,
    uri: (name, credentials) =>
      credentials
        ? `mongodb://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/${encodeURIComponent(name)}?authMechanism=PLAIN`
        : `mongodb://127.0.0.1:${port}/${encodeURIComponent(name)}`,
    pause: () => server.proc.child.kill('SIGSTOP'),
    resume: () => server.proc.child.kill('SIGCONT'),
    async stop() {
      db.resume();
      await client.close().catch(() => undefined);
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  cleanups.push(() => db.stop());
  return db;
}

/**
 * For a test file (or describe block) that runs agents: the prerequisites checked before its
 * tests, every agent and customer database it started stopped after them.
 */
export function agentsForFile(): void {
  beforeAll(() => requirePrerequisites());
  afterAll(() => cleanupAll());
}

/** The customer database of a test file (or describe block) that runs agents (see agentsForFile). */
export function customerDbForFile(): () => CustomerDb {
  let db: CustomerDb | undefined;
  agentsForFile();
  beforeAll(async () => {
    db = await startCustomerDb();
  });
  return () => {
    if (!db) throw new Error('the customer database starts in beforeAll: use it inside a test or hook');
    return db;
  };
}

// ---------------------------------------------------------------------------------------------
// The agent, as a customer runs it.

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `coffer-agent ARGS --config CONFIG` to completion. */
export function agentCli(
  args: string[],
  config: string,
  stdin = '',
  env?: NodeJS.ProcessEnv,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AGENT_BIN, ...args, '--config', config], {
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(env ? { env: { ...process.env, ...env } } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

async function cliOk(args: string[], config: string, stdin = ''): Promise<CliResult> {
  const r = await agentCli(args, config, stdin);
  if (r.code !== 0) throw new Error(`coffer-agent ${args[0]} failed (${r.code}): ${r.stderr}${r.stdout}`);
  return r;
}

export interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

export interface Agent {
  name: string;
  dir: string;
  config: string;
  /** The `run` child (replaced by `start()`). */
  child: ChildProcess | undefined;
  /** Everything the daemon printed (stdout and stderr). */
  output: string;
  logs(): LogLine[];
  waitForLog(match: (l: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** The status file the daemon keeps beside its config. */
  status(): Record<string, any> | undefined;
  /** Starts `coffer-agent run`; by default waits until the dashboard lists the agent as active. */
  start(opts?: { wait?: boolean; env?: NodeJS.ProcessEnv }): Promise<void>;
  /** Sends `signal` and waits for the process to exit; resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Configures an agent for `user` (init with the user's API key, `db add` with the URI on stdin)
 * and starts `coffer-agent run`; resolves once the dashboard lists it as active.
 */
export async function setupAgent(
  user: TestUser,
  databases: Array<{ label: string; uri: string; check?: boolean }>,
  opts: { start?: boolean; server?: string; initArgs?: string[] } = {},
): Promise<Agent> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-e2e-agent-'));
  const config = path.join(dir, 'agent.json');
  const name = `e2e-${randomBytes(4).toString('hex')}`;
  await cliOk(
    [
      'init',
      '--server',
      opts.server ?? baseUrl(),
      '--api-key',
      user.apiKey,
      '--name',
      name,
      ...(opts.initArgs ?? []),
    ],
    config,
  );
  for (const d of databases) {
    const args = ['db', 'add', d.label, '--uri', '-', ...(d.check === false ? ['--no-check'] : [])];
    await cliOk(args, config, d.uri + '\n');
  }

  const pids = new Set<number>();
  const agent: Agent = {
    name,
    dir,
    config,
    child: undefined,
    output: '',
    logs() {
      return agent.output
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as LogLine];
          } catch {
            return [];
          }
        });
    },
    waitForLog(match, timeoutMs = 20_000) {
      return eventually(async () => {
        const found = agent.logs().find(match);
        if (!found)
          throw new Error(`no such agent log line yet; agent output:\n${agent.output.slice(-3000)}`);
        return found;
      }, timeoutMs);
    },
    status() {
      try {
        return JSON.parse(fs.readFileSync(path.join(dir, 'agent.status.json'), 'utf8'));
      } catch {
        return undefined;
      }
    },
    async start(o = {}) {
      const child = spawn(process.execPath, [AGENT_BIN, 'run', '--config', config], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, HEARTBEAT_INTERVAL_MS: '1000', ...o.env },
      });
      agent.child = child;
      pids.add(child.pid!);
      child.stdout!.setEncoding('utf8').on('data', (s: string) => (agent.output += s));
      child.stderr!.setEncoding('utf8').on('data', (s: string) => (agent.output += s));
      if (o.wait ?? true) {
        await waitAgentActive(user.token, name);
        // The agent is listed a moment before its databases are: wait for those too.
        await eventually(async () => {
          const res = await api('GET', '/api/settings/databases', { token: user.token });
          const known = (res.body as any[]).map((d) => d.name);
          for (const d of databases)
            if (!known.includes(d.label)) throw new Error(`${d.label} not listed yet`);
        });
      }
    },
    async stop(signal = 'SIGTERM') {
      const child = agent.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill(signal);
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
  cleanups.push(async () => {
    await agent.stop();
    // A daemon that re-executed itself (the 'restart' command) runs under a new pid.
    const pid = agent.status()?.pid;
    if (typeof pid === 'number' && !pids.has(pid)) {
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      if (alive()) process.kill(pid, 'SIGTERM');
      // It writes its final status on the way out: wait, or it recreates the folder.
      for (let i = 0; i < 100 && alive(); i++) await sleep(100);
      if (alive()) process.kill(pid, 'SIGKILL');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
  if (opts.start ?? true) await agent.start();
  return agent;
}

/** Waits until GET /api/settings/system-status lists the agent `name` as active. */
export async function waitAgentActive(token: string, name: string, timeoutMs = 20_000) {
  return eventually(async () => {
    const res = await api('GET', '/api/settings/system-status', { token });
    const found = (res.body.agents ?? []).find((a: any) => a.name === name && a.status === 'active');
    if (!found) throw new Error(`agent ${name} not active yet: ${JSON.stringify(res.body)}`);
    return found;
  }, timeoutMs);
}

// ---------------------------------------------------------------------------------------------
// Driving the service like the dashboard does.

export async function triggerBackup(token: string, databaseName: string): Promise<any> {
  const res = await api('POST', '/api/backups', { token, body: { databaseName } });
  if (res.status !== 201) throw new Error(`POST /api/backups: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const FINISHED = ['completed', 'failed'];

export async function waitBackup(token: string, id: string, timeoutMs = 60_000, agent?: Agent): Promise<any> {
  return eventually(async () => {
    const res = await api('GET', `/api/backups/${id}`, { token });
    if (!FINISHED.includes(res.body?.status))
      throw new Error(
        `backup ${id} is ${JSON.stringify(res.body)}${agent ? `\nagent:\n${agent.output.slice(-3000)}` : ''}`,
      );
    return res.body;
  }, timeoutMs);
}

/**
 * A backup that must complete. A new database's first backup is the user's (the scheduler leaves
 * it alone for FIRST_BACKUP_GRACE_MINUTES), so this is always the test's own trigger.
 */
export async function backupCompleted(token: string, databaseName: string, agent?: Agent): Promise<any> {
  const created = await triggerBackup(token, databaseName);
  const done = await waitBackup(token, created._id, 60_000, agent);
  if (done.status !== 'completed')
    throw new Error(`backup failed: ${done.error}${agent ? `\nagent:\n${agent.output.slice(-3000)}` : ''}`);
  return done;
}

export async function requestRestore(token: string, backupId: string, databaseName: string): Promise<any> {
  const res = await api('POST', `/api/backups/${backupId}/restore`, { token, body: { databaseName } });
  if (res.status !== 202) throw new Error(`POST restore: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.restore;
}

export async function waitRestore(
  token: string,
  id: string,
  timeoutMs = 60_000,
  agent?: Agent,
): Promise<any> {
  return eventually(async () => {
    const res = await api('GET', '/api/backups/restores/all', { token });
    const r = (res.body as any[]).find((x) => x._id === id);
    if (!r || !FINISHED.includes(r.status))
      throw new Error(
        `restore ${id} is ${JSON.stringify(r)}${agent ? `\nagent:\n${agent.output.slice(-3000)}` : ''}`,
      );
    return r;
  }, timeoutMs);
}

/** Requests a restore of `backupId` into `databaseName` and resolves with it once it has ended. */
export async function restoreEnded(
  token: string,
  backupId: string,
  databaseName: string,
  agent?: Agent,
  timeoutMs = 60_000,
): Promise<any> {
  const requested = await requestRestore(token, backupId, databaseName);
  return waitRestore(token, requested._id, timeoutMs, agent);
}

/** The stored files of a backup under the storage service's filesystem backend. */
export function blobFiles(userId: string, backupId: string): string[] {
  const dir = path.join(process.env.COFFER_DATA_DIR!, 'storage', 'blobs', userId, backupId);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/** Moves `user` to the Pro plan, for tests whose agent reports several databases (Free has one). */
export async function upgradeToPro(user: TestUser): Promise<void> {
  const admin = await adminToken();
  await api('PUT', `/api/admin/users/${user.id}`, {
    token: admin.token,
    body: { plan: await planId('Pro') },
  });
}

export async function profile(token: string): Promise<any> {
  const res = await api('GET', '/api/user/profile', { token });
  if (res.status !== 200) throw new Error(`profile: ${res.status}`);
  return res.body;
}

export const uniqueName = (prefix: string) => `${prefix}${randomBytes(4).toString('hex')}`;

/**
 * Dates backups back (tests of the plan's interval and of retention). Call it once they are
 * settled: FerretDB rewrites a whole document on update, so a write to the backup landing during
 * this one could put `createdAt` back. A completed backup gets none (its agent's summary comes
 * before the upload ends; the contents report after it, which once raced this, is gone).
 */
export async function backdateBackups(
  backups: Collection,
  filter: Filter<Record<string, unknown>>,
  createdAt: Date,
): Promise<void> {
  await backups.updateMany(filter, { $set: { createdAt } });
}
