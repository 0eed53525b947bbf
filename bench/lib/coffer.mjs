// Drives a real Coffer: the whole stack from @coffer/local-stack, a user registered through the
// API, and the real `coffer-agent` (init, db add, run) as a child process, the way a customer
// runs it. Backups and restores are triggered and watched through the public API.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { cpuOf, loadavg, memoryOf } from './proc.mjs';

const require = createRequire(import.meta.url);
export const REPO = path.resolve(import.meta.dirname, '../..');
const AGENT_BIN = path.join(REPO, 'agent/bin/coffer-agent');
/** `coffer-agent run` with the benchmark's stand-ins for mongodump and mongorestore injected. */
const AGENT_RUN = path.join(import.meta.dirname, 'agent-run.mjs');
/** The V8 options the agent's binaries run with: the agent from source gets them too. */
export const { AGENT_EXEC_ARGV } = require('../../agent/dist/runtime/exec-argv.js');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const randomIp = () => `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`;

export const ADMIN = { email: 'bench-admin@coffer.test', password: 'bench-admin-password-1' };

/**
 * Starts every server and service on free ports, with its data under `dataDir`. `serviceDirs`:
 * services to run from another build (a folder with its `dist/`, inside the repository so its
 * imports resolve), e.g. the gateway and storage of a commit before, for a before/after.
 */
export async function startCoffer(dataDir, { storageBackend = 'fs', serviceDirs } = {}) {
  for (const built of [
    'agent/dist/cli/main.js',
    'deploy/local/dist/index.js',
    'services/gateway/dist/main.js',
  ])
    if (!fs.existsSync(path.join(REPO, built)))
      throw new Error(`${built} is missing: build first (npm run build, or npx tsc -b tsconfig.json)`);
  const { startStack } = require('@coffer/local-stack');
  fs.mkdirSync(dataDir, { recursive: true });
  const stack = await startStack({
    repoRoot: REPO,
    dataDir,
    ports: 'free',
    storageBackend,
    serviceDirs,
    env: {
      NODE_ENV: 'test',
      // `info` gives the services' timestamps a small job's breakdown is read from (bench/README.md).
      LOG_LEVEL: process.env.COFFER_BENCH_LOG_LEVEL ?? 'warn',
      JWT_SECRET: crypto.randomBytes(32).toString('base64url'),
      API_KEY_PEPPER: crypto.randomBytes(32).toString('base64url'),
      COFFER_ADMIN_EMAIL: ADMIN.email,
      COFFER_ADMIN_PASSWORD: ADMIN.password,
      TRUST_PROXY: 'loopback',
    },
  });
  return { stack, url: stack.urls.app, storageDir: path.join(dataDir, 'storage') };
}

/** One call to the gateway, like the web app makes it. */
export async function api(base, method, urlPath, { token, body } = {}) {
  const headers = { 'x-forwarded-for': randomIp() };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + urlPath, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    // A service that stops answering fails the part instead of hanging the bench.
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let parsed = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed };
}

/**
 * Registers a fresh user. Each measured backup gets its own user (and agent), because the plan's
 * minimum interval between backups of one database is an hour even on the largest plan. The user
 * is moved to the largest plan by the admin so storage limits never interfere.
 */
export async function newUser(base) {
  const email = `bench-${crypto.randomBytes(6).toString('hex')}@example.test`;
  const password = 'bench-password-1';
  const res = await api(base, 'POST', '/api/auth/register', { body: { name: 'Bench', email, password } });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
  const user = { id: res.body.user.id, email, token: res.body.token, apiKey: res.body.user.apiKey };
  const admin = await api(base, 'POST', '/api/auth/login', { body: ADMIN });
  const plans = await api(base, 'GET', '/api/settings/plans');
  const largest = Array.isArray(plans.body)
    ? [...plans.body].sort((a, b) => (b.storageLimit ?? 0) - (a.storageLimit ?? 0))[0]
    : undefined;
  const planId = largest?._id ?? largest?.id;
  if (admin.status === 200 && planId) {
    const up = await api(base, 'PUT', `/api/admin/users/${user.id}`, {
      token: admin.body.token,
      body: { plan: planId },
    });
    if (up.status >= 300) console.warn(`  (could not change the bench user's plan: ${up.status})`);
  }
  return user;
}

function cli(args, config, stdin = '') {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AGENT_BIN, ...args, '--config', config], { stdio: 'pipe' });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s) => (out += s));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`coffer-agent ${args[0]} failed (${code}): ${out}`)),
    );
    child.stdin.end(stdin);
  });
}

/** `coffer-agent init`, `db add LABEL --uri -` and `run`; resolves once the dashboard shows it active. */
export async function startAgent(base, user, { dir, label, uri, env, noCheck = false, standIns }) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const config = path.join(dir, 'agent.json');
  const name = `bench-${crypto.randomBytes(3).toString('hex')}`;
  await cli(['init', '--server', base, '--api-key', user.apiKey, '--name', name], config);
  await cli(['db', 'add', label, '--uri', '-', ...(noCheck ? ['--no-check'] : [])], config, `${uri}\n`);
  return runAgent(base, user, { dir, name, env, standIns });
}

/**
 * `coffer-agent run` of an agent configured in `dir` (a fresh process each call). `standIns`
 * ({ replayArchive: '/abs/file', discardRestore: true }) runs it through agent-run.mjs instead,
 * with the recorded archive for mongodump and a discarding sink for mongorestore.
 */
export async function runAgent(base, user, { dir, name, env = {}, standIns }) {
  const config = path.join(dir, 'agent.json');
  const log = fs.openSync(path.join(dir, 'agent.log'), 'a');
  const program = standIns
    ? [
        AGENT_RUN,
        ...(standIns.replayArchive ? ['--replay-archive', standIns.replayArchive] : []),
        ...(standIns.discardRestore ? ['--discard-restore'] : []),
      ]
    : [AGENT_BIN, 'run'];
  const child = spawn(process.execPath, [...AGENT_EXEC_ARGV, ...program, '--config', config], {
    stdio: ['ignore', log, log],
    env: { ...process.env, HEARTBEAT_INTERVAL_MS: '2000', ...env },
  });
  const exited = new Promise((r) => child.once('exit', r));
  let logOpen = true;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await api(base, 'GET', '/api/settings/system-status', { token: user.token });
    if ((res.body?.agents ?? []).some((a) => a.name === name && a.status === 'active')) break;
    if (child.exitCode !== null) throw new Error(`coffer-agent run exited; see ${dir}/agent.log`);
    if (Date.now() > deadline) throw new Error(`agent ${name} never became active; see ${dir}/agent.log`);
    await sleep(250);
  }
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    pid: child.pid,
    dir,
    name,
    alive,
    memory: () => (alive() ? memoryOf(child.pid) : undefined),
    cpu: () => (alive() ? cpuOf(child.pid) : undefined),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(t);
      }
      if (logOpen) fs.closeSync(log);
      logOpen = false;
    },
  };
}

async function until(what, check, timeoutMs, pollMs = 200) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: timed out after ${timeoutMs / 1000} s`);
    await sleep(pollMs);
  }
}

const FINISHED = ['completed', 'failed'];

/** Agent CPU (itself, and the tools it waited for) between two readings; nothing if it died. */
const cpuDelta = (a, b) =>
  a && b ? { agentCpuMs: b.selfMs - a.selfMs, toolCpuMs: b.childrenMs - a.childrenMs } : {};

/**
 * POST /api/backups, then polls GET /api/backups/{id} until it is completed. `ms` is from just
 * before the POST to the first poll that saw 'completed' (200 ms polling).
 */
const backupDone = (base, user, id, timeoutMs) =>
  until(
    `backup ${id}`,
    async () => {
      const r = await api(base, 'GET', `/api/backups/${id}`, { token: user.token });
      return FINISHED.includes(r.body?.status) ? r.body : undefined;
    },
    timeoutMs,
  );

/**
 * POST /api/backups of `label`; resolves with the new backup and the moments it was asked for
 * (`askedAt`, performance.now(); `askedAtMs`, Date.now()). A
 * new database's first automatic backup starts at the scheduler's next tick once its agent is
 * connected; when it got there first, the plan's interval refuses this one (429). Then that
 * backup is waited for and deleted (a deleted backup does not count) and the request repeated.
 */
export async function startBackup(
  base,
  user,
  label,
  { beforeAsk = () => undefined, timeoutMs = 180_000 } = {},
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    beforeAsk(); // readings taken here leave out a scheduler's backup that had to be waited for
    const askedAt = performance.now();
    const askedAtMs = Date.now(); // the clock of the components' log lines
    const res = await api(base, 'POST', '/api/backups', { token: user.token, body: { databaseName: label } });
    if (res.status === 201) return { backup: res.body, askedAt, askedAtMs };
    if (res.status !== 429 || Date.now() > deadline)
      throw new Error(`POST /api/backups: ${res.status} ${JSON.stringify(res.body)}`);
    const listed = await api(base, 'GET', '/api/backups', { token: user.token });
    for (const b of (listed.body ?? []).filter((x) => x.databaseName === label)) {
      await backupDone(base, user, b._id, Math.max(1000, deadline - Date.now()));
      await api(base, 'DELETE', `/api/backups/${b._id}`, { token: user.token });
    }
  }
}

export async function timedBackup(base, user, label, agent, timeoutMs) {
  let cpu0;
  let load0;
  const { backup, askedAt: started } = await startBackup(base, user, label, {
    beforeAsk: () => {
      cpu0 = agent.cpu();
      load0 = loadavg();
    },
  });
  const done = await backupDone(base, user, backup._id, timeoutMs);
  return measuredJob('backup', done, { started, cpu0, load0 }, agent);
}

/**
 * A timed job's figures once it ended (it must have completed): the wall time and the agent's CPU
 * since `from`, the load average over the job, the agent's memory.
 */
function measuredJob(kind, done, from, agent) {
  const ms = performance.now() - from.started;
  if (done.status !== 'completed')
    throw new Error(`${kind} ${done._id} failed: ${done.error}; see ${agent.dir}/agent.log`);
  const cpu1 = agent.cpu();
  return {
    id: done._id,
    ms,
    record: done,
    load: (from.load0 + loadavg()) / 2,
    ...cpuDelta(from.cpu0, cpu1),
    memory: agent.memory(),
  };
}

/** POST /api/backups/{id}/restore, then polls the restore history until it is completed. */
export async function timedRestore(base, user, backupId, label, agent, timeoutMs) {
  const cpu0 = agent.cpu();
  const load0 = loadavg();
  const started = performance.now();
  const res = await api(base, 'POST', `/api/backups/${backupId}/restore`, {
    token: user.token,
    body: { databaseName: label },
  });
  if (res.status !== 202) throw new Error(`POST restore: ${res.status} ${JSON.stringify(res.body)}`);
  const id = res.body.restore._id;
  const done = await until(
    `restore ${id}`,
    async () => {
      const r = await api(base, 'GET', '/api/backups/restores/all', { token: user.token });
      const found = Array.isArray(r.body) ? r.body.find((x) => x._id === id) : undefined;
      return found && FINISHED.includes(found.status) ? found : undefined;
    },
    timeoutMs,
  );
  return measuredJob('restore', done, { started, cpu0, load0 }, agent);
}

/** Bytes on disk of a backup's stored blob under the filesystem storage backend (any file whose path names the backup). */
export function storedBlobBytes(storageDir, backupId) {
  const dir = path.join(storageDir, 'blobs');
  if (!fs.existsSync(dir)) return undefined;
  const files = fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && path.join(e.parentPath, e.name).includes(backupId));
  return files.length
    ? files.reduce((n, e) => n + fs.statSync(path.join(e.parentPath, e.name)).size, 0)
    : undefined;
}
