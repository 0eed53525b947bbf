// Load benchmarks (issue 15): idle sockets' memory, progress latency, the dashboard list under
// load, and a gateway dying under load. Each part starts a stack of its own. Prints figures and
// writes them to bench/out/load/results.json; asserts nothing. See bench/README.md, "Load".
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ADMIN, REPO, api, newUser, startAgent, startBackup } from '../lib/coffer.mjs';
import { startProxy } from './proxy.mjs';

const require = createRequire(import.meta.url);
const { io } = require('socket.io-client');
const { MongoClient, ObjectId } = require('mongodb');
const { Backoff } = require('../../agent/dist/daemon/backoff.js');

const { values: opt } = parseArgs({
  options: {
    sockets: { type: 'string', default: '10000' },
    'event-rate': { type: 'string', default: '1000' },
    'event-seconds': { type: 'string', default: '20' },
    backups: { type: 'string', default: '10000' },
    'api-rate': { type: 'string', default: '200' },
    'api-seconds': { type: 'string', default: '20' },
    'failover-sockets': { type: 'string', default: '1000' },
    'open-budget-s': { type: 'string', default: '1200' },
    // Agent sockets opened at once: each is a registration, a write on the orchestrator's FerretDB.
    'agent-batch': { type: 'string', default: '20' },
    // The registration storm: agent sockets that reconnect at once after a gateway restart.
    'storm-agents': { type: 'string', default: '10000' },
    'storm-budget-s': { type: 'string', default: '900' },
    skip: { type: 'string', default: '' },
    work: { type: 'string', default: path.join(REPO, 'bench/out/load') },
  },
});
const skip = new Set(opt.skip.split(',').filter(Boolean));
const N = Number(opt.sockets);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const PATH = '/api/socket.io';
const results = {
  startedAt: new Date().toISOString(),
  host: { cpus: os.cpus().length, loadavg: os.loadavg() },
};
fs.mkdirSync(opt.work, { recursive: true });
const save = () => fs.writeFileSync(path.join(opt.work, 'results.json'), JSON.stringify(results, null, 2));
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

async function startBenchStack(name, { gateways = 1 } = {}) {
  const { startStack } = require('@coffer/local-stack');
  const dataDir = path.join(opt.work, name);
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  const stack = await startStack({
    repoRoot: REPO,
    dataDir,
    ports: 'free',
    gateways,
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      JWT_SECRET: crypto.randomBytes(32).toString('base64url'),
      API_KEY_PEPPER: crypto.randomBytes(32).toString('base64url'),
      COFFER_ADMIN_EMAIL: ADMIN.email,
      COFFER_ADMIN_PASSWORD: ADMIN.password,
      TRUST_PROXY: 'loopback',
      // The bench registers its users through the API from one address.
      RATE_REGISTER_PER_IP: '100000',
      RATE_LOGIN_PER_IP: '100000',
    },
  });
  const gatewayPids = stack.procs.filter((p) => p.name.startsWith('gateway')).map((p) => p.child.pid);
  return { stack, url: stack.urls.app, gatewayPids, opsUrl: opsUrlOf(gatewayPids[0]) };
}

/** The gateway's ops port (/metrics) is not in the Stack; its environment says where it is. */
function opsUrlOf(pid) {
  try {
    const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const port = env.find((e) => e.startsWith('OPS_PORT='))?.slice('OPS_PORT='.length);
    return port ? `http://127.0.0.1:${port}` : undefined;
  } catch {
    return undefined;
  }
}

function procMemory(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(status.match(new RegExp(`${k}:\\s+(\\d+)`))?.[1]);
  return { rssKb: kb('VmRSS') };
}

/** The gateway's own heap figures from its /metrics (prom-client defaults), when it serves them. */
async function heapOf(url) {
  if (!url) return {};
  try {
    const text = await (await fetch(`${url}/metrics`)).text();
    const v = (n) => Number(text.match(new RegExp(`^${n}(?:\\{[^}]*\\})? ([0-9.e+]+)`, 'm'))?.[1]);
    const used = v('nodejs_heap_size_used_bytes');
    return Number.isFinite(used) ? { heapUsedKb: used / 1024 } : {};
  } catch {
    return {};
  }
}

async function memoryOf(url, pid) {
  // Several readings a second apart, the smallest taken: a collection may be under way in one.
  const readings = [];
  for (let i = 0; i < 5; i++) {
    readings.push({ ...procMemory(pid), ...(await heapOf(url)) });
    await sleep(1000);
  }
  const min = (k) => Math.min(...readings.map((r) => r[k] ?? Infinity));
  const heap = min('heapUsedKb');
  return { rssKb: min('rssKb'), heapUsedKb: Number.isFinite(heap) ? heap : undefined };
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const r = (x) => (x === undefined ? undefined : Math.round(x * 10) / 10);
  return { n: s.length, p50: r(pct(s, 50)), p90: r(pct(s, 90)), p99: r(pct(s, 99)), max: r(s.at(-1)) };
}

const AGENTS_PER_ACCOUNT = 50; // contracts LIMITS.agentsPerAccount

/** A plain sign-up through the API (no plan change: idle sockets need no storage). */
async function register(base) {
  const email = `bench-${crypto.randomBytes(6).toString('hex')}@example.test`;
  const res = await api(base, 'POST', '/api/auth/register', {
    body: { name: 'Bench', email, password: 'bench-password-1' },
  });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id, token: res.body.token, apiKey: res.body.user.apiKey };
}

const instanceId = () => `bench-${crypto.randomBytes(8).toString('hex')}`;

/** A socket.io client speaking the agent handshake (docs/agent-protocol.md), without the real agent. */
function agentSocket(base, apiKey, { reconnection = false, address, agentTiming = false } = {}) {
  return socketTo(
    `${base}/agents`,
    reconnection,
    {
      apiKey,
      instanceId: instanceId(),
      name: 'bench-load',
      hostname: 'bench',
      // Each its own configuration file: one host's agents, not one agent set up again and again.
      configId: crypto.randomBytes(16).toString('hex'),
      platform: 'linux',
      version: '',
      databases: [],
    },
    {
      // The agent's own timing (agent/src/daemon/connection.ts) when asked, else quick for the bench.
      ...(agentTiming
        ? { reconnectionDelay: 1000, reconnectionDelayMax: 30_000, randomizationFactor: 0.5, timeout: 20_000 }
        : {}),
      // The gateway trusts the loopback proxy's header (TRUST_PROXY): each agent its own host, so the
      // per-address handshake bounds apply as they would to agents spread over many machines.
      ...(address ? { extraHeaders: { 'x-forwarded-for': address } } : {}),
    },
  );
}
/** A browser's socket: the session token, the web app's path. */
function browserSocket(base, token, { reconnection = false } = {}) {
  return socketTo(base, reconnection, { token });
}
/** A socket of its own (no shared manager) to `url` on the stack's Socket.IO path, over WebSocket. */
function socketTo(url, reconnection, auth, options = {}) {
  return io(url, {
    path: PATH,
    transports: ['websocket'],
    forceNew: true,
    reconnection,
    reconnectionDelay: 500,
    reconnectionDelayMax: 2000,
    ...options,
    auth,
  });
}
/** Resolves once the socket is usable (agents: `registered`), rejects on a refusal. */
function ready(socket, event) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no ${event} within 60 s`)), 60_000);
    socket.once(event, (m) => (clearTimeout(t), resolve(m)));
    socket.once(
      'connect_error',
      (e) => (clearTimeout(t), reject(new Error(`${e.message} ${JSON.stringify(e.data ?? {})}`))),
    );
  });
}
async function openMany(n, make, event, budgetSeconds = Infinity, batch = 100) {
  const sockets = [];
  let failed = 0;
  let firstError;
  const until = performance.now() + budgetSeconds * 1000;
  for (let i = 0; i < n && performance.now() < until; i += batch) {
    const group = Array.from({ length: Math.min(batch, n - i) }, () => make());
    const outcomes = await Promise.allSettled(group.map((s) => ready(s, event)));
    outcomes.forEach((o, k) => {
      if (o.status === 'fulfilled') sockets.push(group[k]);
      else {
        failed++;
        firstError ??= o.reason.message;
        group[k].close();
      }
    });
    if ((i / batch) % 20 === 0) log(`  ${sockets.length} open, ${failed} refused`);
  }
  return { sockets, failed, firstError };
}

// ── 1. Idle sockets' memory ────────────────────────────────────────────────────────────────────
async function idleSockets(kind) {
  log(`part 1 (${kind}): ${N} idle sockets on one gateway`);
  const { stack, url, gatewayPids, opsUrl } = await startBenchStack(`idle-${kind}`);
  try {
    const user = await newUser(url);
    // An account may have LIMITS.agentsPerAccount (50) agents, a constant: ten thousand agents are
    // two hundred users' worth, registered through the API like any sign-up.
    const keys = [user.apiKey];
    if (kind === 'agent') {
      for (let i = 1; i < Math.ceil(N / AGENTS_PER_ACCOUNT) + 1; i++) keys.push((await register(url)).apiKey);
      log(`  ${keys.length} users registered`);
    }
    let made = 1; // the warm socket is the first user's
    const nextKey = () => keys[Math.floor(made++ / AGENTS_PER_ACCOUNT)];
    // One socket first, so what every socket shares (code paths, the adapter) is in the baseline.
    const warm = kind === 'agent' ? agentSocket(url, user.apiKey) : browserSocket(url, user.token);
    await ready(warm, kind === 'agent' ? 'registered' : 'connect');
    await sleep(3000);
    const before = await memoryOf(opsUrl, gatewayPids[0]);
    log('  before', before);
    const started = performance.now();
    const { sockets, failed, firstError } = await openMany(
      N,
      () => (kind === 'agent' ? agentSocket(url, nextKey()) : browserSocket(url, user.token)),
      kind === 'agent' ? 'registered' : 'connect',
      Number(opt['open-budget-s']),
      kind === 'agent' ? Number(opt['agent-batch']) : 100,
    );
    const openSeconds = (performance.now() - started) / 1000;
    await sleep(10_000);
    const after = await memoryOf(opsUrl, gatewayPids[0]);
    log(
      '  after',
      after,
      `${sockets.length} open in ${openSeconds.toFixed(0)} s, ${failed} refused`,
      firstError ?? '',
    );
    const per = (k) =>
      before[k] !== undefined && after[k] !== undefined
        ? (after[k] - before[k]) / Math.max(1, sockets.length)
        : undefined;
    const r = {
      open: sockets.length,
      refused: failed,
      firstError,
      openSeconds: Math.round(openSeconds),
      before,
      after,
      rssKbPerSocket: per('rssKb'),
      heapKbPerSocket: per('heapUsedKb'),
      loadavg: os.loadavg(),
    };
    log(
      `  => ${r.rssKbPerSocket?.toFixed(1)} KB RSS and ${r.heapKbPerSocket?.toFixed(1)} KB heap per ${kind} socket`,
    );
    for (const s of sockets) s.close();
    warm.close();
    return r;
  } finally {
    await stack.stop();
  }
}

// ── 2. Progress latency ────────────────────────────────────────────────────────────────────────
async function progressLatency() {
  const rate = Number(opt['event-rate']);
  const seconds = Number(opt['event-seconds']);
  const agents = 100; // a thousand events a second is a hundred agents at the protocol's 10/s … or more at 1/s
  log(`part 2: progress at ${rate}/s for ${seconds} s from ${agents} agent sockets to one browser`);
  const { stack, url } = await startBenchStack('events');
  try {
    const user = await newUser(url);
    const browser = browserSocket(url, user.token);
    await ready(browser, 'connect');
    const { sockets } = await openMany(agents, () => agentSocket(url, user.apiKey), 'registered');
    const now = () => performance.timeOrigin + performance.now();
    const latencies = [];
    let received = 0;
    browser.on('backupProgress', (m) => {
      if (m.progress?.collection !== 'bench') return;
      received++;
      latencies.push(now() - m.progress.current);
    });
    const backupId = new ObjectId().toHexString();
    // Open loop: each 10 ms tick sends what the schedule owes, whatever the receiver is doing.
    const total = rate * seconds;
    let sent = 0;
    const t0 = performance.now();
    while (sent < total) {
      const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate));
      for (; sent < due; sent++)
        sockets[sent % agents].emit('backup:progress', {
          backupId,
          progress: { current: now(), total: 1, percentage: 50, collection: 'bench' },
        });
      await sleep(10);
    }
    const sendSeconds = (performance.now() - t0) / 1000;
    await sleep(5000);
    const r = {
      rate,
      seconds,
      agents,
      sent,
      received,
      achievedRate: Math.round(sent / sendSeconds),
      latencyMs: summary(latencies),
      loadavg: os.loadavg(),
    };
    log('  =>', r);
    browser.close();
    for (const s of sockets) s.close();
    return r;
  } finally {
    await stack.stop();
  }
}

// ── 3. Dashboard list ──────────────────────────────────────────────────────────────────────────
async function seedBackups(stack, userId, count, stepMs = 3600_000) {
  const client = await MongoClient.connect(stack.urls.mongo);
  try {
    const col = client.db(stack.env.ORCHESTRATOR_DB ?? 'coffer_orchestrator').collection('backups');
    const t = Date.now();
    // The shape the orchestrator's store writes (services/backup-orchestrator/src/model.ts).
    const docs = Array.from({ length: count }, (_, i) => {
      const _id = new ObjectId();
      const createdAt = new Date(t - i * stepMs);
      return {
        _id,
        userId,
        databaseName: 'bench_db',
        agentId: 'bench-agent',
        status: 'completed',
        createdAt,
        commandId: crypto.randomUUID(),
        commandSentAt: createdAt,
        startedAt: createdAt,
        completedAt: new Date(createdAt.getTime() + 60_000),
        error: null,
        absentSince: null,
        type: i % 4 === 0 ? 'manual' : 'auto',
        size: 50_000_000 + i,
        keyFingerprint: 'f'.repeat(16),
        scheduleSlot: `manual:${_id.toHexString()}`,
        deletingSince: null,
        deleteReason: null,
      };
    });
    for (let i = 0; i < docs.length; i += 1000)
      await col.insertMany(docs.slice(i, i + 1000), { ordered: false });
  } finally {
    await client.close();
  }
}

async function openLoop(url, token, rate, seconds) {
  const latencies = [];
  const statuses = {};
  let bytes = 0;
  let items = 0;
  const inflight = [];
  const total = rate * seconds;
  const t0 = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate));
    for (; sent < due; sent++) {
      const start = performance.now();
      inflight.push(
        fetch(`${url}/api/backups`, {
          headers: {
            authorization: `Bearer ${token}`,
            'x-forwarded-for': `10.9.${sent % 250}.${1 + (sent % 200)}`,
          },
        })
          .then(async (res) => {
            const text = await res.text();
            latencies.push(performance.now() - start);
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            bytes = text.length;
            if (res.status === 200) {
              const body = JSON.parse(text);
              items = Array.isArray(body) ? body.length : (body.backups ?? body.items ?? []).length;
            }
          })
          .catch(() => (statuses.error = (statuses.error ?? 0) + 1)),
      );
    }
    await sleep(5);
  }
  await Promise.all(inflight);
  return {
    rate,
    seconds,
    statuses,
    listed: items,
    responseBytes: bytes,
    latencyMs: summary(latencies),
    loadavg: os.loadavg(),
  };
}

const PAGE = 50;
async function serial(url, token, n) {
  const latencies = [];
  let listed = 0;
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const res = await fetch(`${url}/api/backups`, {
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': `10.8.0.${1 + (i % 200)}` },
    });
    const body = await res.json();
    latencies.push(performance.now() - start);
    listed = Array.isArray(body) ? body.length : 0;
  }
  return { listed, latencyMs: summary(latencies) };
}

async function dashboard() {
  const count = Number(opt.backups);
  const rate = Number(opt['api-rate']);
  const seconds = Number(opt['api-seconds']);
  log(`part 3: GET /api/backups at ${rate}/s, ${count} backups vs ${PAGE}`);
  const { stack, url } = await startBenchStack('dashboard');
  try {
    const big = await newUser(url);
    const small = await newUser(url);
    await seedBackups(stack, big.id, count);
    // A user with one page's worth: what a paginated list (50 a page) would cost per request.
    await seedBackups(stack, small.id, PAGE);
    await openLoop(url, small.token, 20, 2); // warm-up
    // One request at a time: the service time, without queueing.
    const serialSmall = await serial(url, small.token, 50);
    log(`  serial, ${PAGE} backups =>`, serialSmall);
    const serialBig = await serial(url, big.token, 50);
    log(`  serial, ${count} backups =>`, serialBig);
    const baseline = await openLoop(url, small.token, rate, seconds);
    log(`  ${PAGE} backups at ${rate}/s =>`, baseline);
    const loaded = await openLoop(url, big.token, rate, seconds);
    log(`  ${count} backups at ${rate}/s =>`, loaded);
    return { backups: count, page: PAGE, serialSmall, serialBig, baseline, loaded };
  } finally {
    await stack.stop();
  }
}

// ── 4. A gateway killed under load ────────────────────────────────────────────────────────────
async function failover() {
  const load = Number(opt['failover-sockets']);
  log(
    `part 4: two gateways behind a round-robin proxy, ${load} agent + ${load / 10} browser sockets, one gateway killed`,
  );
  const { stack, gatewayPids } = await startBenchStack('failover', { gateways: 2 });
  const proxy = await startProxy(stack.urls.gateways);
  const open = [];
  try {
    // A database worth a backup of some seconds, on the stack's own FerretDB.
    const client = await MongoClient.connect(stack.urls.mongo);
    const coll = client.db('bench_load').collection('docs');
    const pad = 'x'.repeat(900);
    for (let i = 0; i < 20; i++)
      await coll.insertMany(
        Array.from({ length: 1000 }, (_, k) => ({ n: i * 1000 + k, pad, at: new Date() })),
      );
    await client.close();
    const user = await newUser(proxy.url);
    const uri = `${stack.urls.mongo.replace(/\/$/, '')}/bench_load`;
    // The load's agents belong to other users: an account may have 50 agents.
    const keys = [];
    for (let i = 0; i < Math.ceil(load / AGENTS_PER_ACCOUNT); i++)
      keys.push((await register(proxy.url)).apiKey);
    let made = 0;

    // The watched browser and the real agent land on gateway 1 (the one to be killed).
    proxy.pin = 0;
    const browser = browserSocket(proxy.url, user.token, { reconnection: true });
    open.push(browser);
    await ready(browser, 'connect');
    const agent = await startAgent(proxy.url, user, {
      dir: path.join(opt.work, 'failover', 'agent'),
      label: 'bench_load',
      uri,
    });
    // The load: sockets spread over both gateways, all reconnecting as clients do.
    proxy.pin = null;
    const agents = await openMany(
      load,
      () => agentSocket(proxy.url, keys[Math.floor(made++ / AGENTS_PER_ACCOUNT)], { reconnection: true }),
      'registered',
      Number(opt['open-budget-s']),
      Number(opt['agent-batch']),
    );
    const browsers = await openMany(
      load / 10,
      () => browserSocket(proxy.url, user.token, { reconnection: true }),
      'connect',
    );
    open.push(...agents.sockets, ...browsers.sockets);
    const onFirst = proxy.targets[0].open.size;

    const events = [];
    browser.on('backupProgress', (m) => events.push({ at: Date.now(), ...m }));
    let browserReconnectedAt;
    browser.io.on('reconnect', () => (browserReconnectedAt ??= Date.now()));
    let reconnected = 0;
    const disconnectReasons = {};
    for (const s of agents.sockets) {
      s.io.on('reconnect', () => reconnected++);
      s.on('disconnect', (why) => (disconnectReasons[why] = (disconnectReasons[why] ?? 0) + 1));
    }

    // The upload goes through the survivor: a cut upload fails its backup by design (agent protocol).
    proxy.pin = 1;
    const backupId = (await startBackup(proxy.url, user, 'bench_load')).backup._id;
    const t0 = Date.now();
    while (!events.some((e) => e.backupId === backupId && e.progress) && Date.now() - t0 < 120_000)
      await sleep(100);
    const progressBefore = events.filter((e) => e.backupId === backupId).length;
    const killedAt = Date.now();
    log(`  killing gateway 1 (${onFirst} connections on it) after ${progressBefore} progress events`);
    await stack.procs.find((p) => p.child.pid === gatewayPids[0]).kill('SIGKILL');
    proxy.markDead(0);
    proxy.pin = null;

    let final;
    const deadline = Date.now() + 300_000;
    while (Date.now() < deadline) {
      if (events.some((e) => e.backupId === backupId && ['completed', 'failed'].includes(e.status))) break;
      await sleep(500);
    }
    const seenByBrowser = events.find(
      (e) => e.backupId === backupId && ['completed', 'failed'].includes(e.status),
    );
    for (;;) {
      final = await api(proxy.url, 'GET', `/api/backups/${backupId}`, { token: user.token });
      if (['completed', 'failed'].includes(final.body?.status) || Date.now() > deadline) break;
      await sleep(1000);
    }
    await sleep(5000);
    const onSurvivor = proxy.targets[1].open.size;
    const r = {
      loadSockets: { agents: agents.sockets.length, browsers: browsers.sockets.length },
      connectionsOnKilled: onFirst,
      agentSocketsReconnected: reconnected,
      agentSocketsConnectedAfter: agents.sockets.filter((s) => s.connected).length,
      agentDisconnectReasons: disconnectReasons,
      connectionsOnSurvivorAfter: onSurvivor,
      browserReconnectMs: browserReconnectedAt ? browserReconnectedAt - killedAt : undefined,
      progressEventsBeforeKill: progressBefore,
      progressEventsAfterKill: events.filter((e) => e.backupId === backupId && e.at > killedAt).length,
      browserSawEnd: seenByBrowser ? seenByBrowser.status : 'no',
      browserSawEndAfterMs: seenByBrowser ? seenByBrowser.at - killedAt : undefined,
      finalStatus: final.body?.status,
      finalError: final.body?.error ?? undefined,
      loadavg: os.loadavg(),
    };
    log('  =>', r);
    await agent.stop();
    return r;
  } finally {
    for (const s of open) s.close();
    await proxy.close();
    await stack.stop();
  }
}

// ── 5. A registration storm ───────────────────────────────────────────────────────────────────
/** The n-th of many client addresses (header values only: the traffic stays on loopback). */
const hostAddress = (n) => `10.${20 + Math.floor(n / 65_536)}.${Math.floor(n / 256) % 256}.${n % 256}`;

/**
 * One user's GET /api/backups, one request at a time with a short pause, until `stop()`: the
 * service time of each (a queue of its own requests would measure the sampler). Answered
 * latencies and statuses ('error': no answer, e.g. while the gateway is down).
 */
function dashboardSampler(url, token) {
  const latencies = [];
  const statuses = {};
  let stopped = false;
  let sent = 0;
  const done = (async () => {
    while (!stopped) {
      const start = performance.now();
      try {
        const res = await fetch(`${url}/api/backups`, {
          headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': `10.7.${sent++ % 250}.1` },
          signal: AbortSignal.timeout(60_000),
        });
        await res.arrayBuffer();
        if (res.status === 200) latencies.push(performance.now() - start);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      } catch {
        statuses.error = (statuses.error ?? 0) + 1;
      }
      await sleep(100);
    }
    return { statuses, latencyMs: summary(latencies) };
  })();
  return {
    stop() {
      stopped = true;
      return done;
    },
  };
}

async function registrationStorm() {
  const n = Number(opt['storm-agents']);
  const budgetMs = Number(opt['storm-budget-s']) * 1000;
  log(`part 5: ${n} agent sockets reconnect at once after a gateway restart`);
  const { stack, url } = await startBenchStack('storm');
  const sockets = [];
  try {
    const gateway = stack.procs.find((p) => p.name.startsWith('gateway'));
    // Another user, watching their dashboard (500 backups of the last hours: none for the
    // retention sweep to delete meanwhile) throughout.
    const watcher = await newUser(url);
    await seedBackups(stack, watcher.id, 500, 30_000);
    const keys = [];
    for (let i = 0; i < Math.ceil(n / AGENTS_PER_ACCOUNT); i++) keys.push((await register(url)).apiKey);
    log(`  ${keys.length} users registered`);
    let made = 0;
    const opened = await openMany(
      n,
      () => {
        const k = made++;
        // Neighbours belong to different accounts, as agents opened together would.
        return agentSocket(url, keys[k % keys.length], {
          reconnection: true,
          address: hostAddress(k),
          agentTiming: true,
        });
      },
      'registered',
      Number(opt['open-budget-s']),
      Number(opt['agent-batch']),
    );
    sockets.push(...opened.sockets);
    log(`  ${sockets.length} agents registered, ${opened.failed} refused`, opened.firstError ?? '');
    await sleep(5000);

    let sampler = dashboardSampler(url, watcher.token);
    await sleep(30_000);
    const before = await sampler.stop();
    log('  dashboard before the storm =>', before);

    let registered = 0;
    const refusals = {};
    for (const s of sockets) {
      // As the agent does: socket.io does not retry a refusal by the server; the agent does, backing off.
      const backoff = new Backoff();
      s.on('registered', () => {
        registered++;
        backoff.reset();
      });
      s.on('connect_error', (e) => {
        const code = e.data?.code ?? e.message;
        refusals[code] = (refusals[code] ?? 0) + 1;
        if (!s.active) setTimeout(() => s.connect(), backoff.next());
      });
    }
    await gateway.kill('SIGKILL');
    const killedAt = performance.now();
    await gateway.restart(120_000);
    const upAt = performance.now();
    sampler = dashboardSampler(url, watcher.token);
    let allAt;
    let lastLog = 0;
    while (performance.now() - upAt < budgetMs) {
      if (registered >= sockets.length) {
        allAt = performance.now();
        break;
      }
      if (performance.now() - lastLog > 15_000) {
        lastLog = performance.now();
        log(`  ${registered}/${sockets.length} registered again`);
      }
      await sleep(250);
    }
    const during = await sampler.stop();
    const r = {
      agents: sockets.length,
      accounts: keys.length,
      gatewayRestartS: Math.round((upAt - killedAt) / 100) / 10,
      registeredAgain: registered,
      allRegisteredS: allAt ? Math.round((allAt - upAt) / 100) / 10 : undefined,
      refusals,
      dashboardBefore: before,
      dashboardDuring: during,
      p99Ratio:
        before.latencyMs.p99 && during.latencyMs.p99
          ? Math.round((during.latencyMs.p99 / before.latencyMs.p99) * 100) / 100
          : undefined,
      loadavg: os.loadavg(),
    };
    log('  =>', r);
    return r;
  } finally {
    for (const s of sockets) s.close();
    await stack.stop();
  }
}

const parts = [
  ['idleAgents', () => idleSockets('agent')],
  ['idleBrowsers', () => idleSockets('browser')],
  ['progress', progressLatency],
  ['dashboard', dashboard],
  ['failover', failover],
  ['storm', registrationStorm],
];
for (const [name, run] of parts) {
  if (skip.has(name)) continue;
  try {
    results[name] = await run();
  } catch (err) {
    log(`${name} failed:`, err);
    results[name] = { error: String(err?.message ?? err) };
  }
  save();
}
log(`results in ${path.join(opt.work, 'results.json')}`);
process.exit(0);
