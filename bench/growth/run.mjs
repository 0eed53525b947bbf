// Growth benchmark (issue 22): what one dashboard page, an agent registration, a heartbeat, an
// audit write, a scheduler tick and a retention sweep cost at 1×, 10× and 100× the data, as ratios
// to 1×. It drives the services' own stores and jobs (the built `services/*/dist`) against a
// private FerretDB on PostgreSQL (or SQLite: --backend sqlite), one operation at a time; no HTTP,
// so the figures are the database's share of each request. Seeded per user: 1 agent, 1 database,
// its settings, 10 backups, 10 audit entries; 1× is 100 users (1,000 backups, 100 agents).
//
//   nice node bench/growth/run.mjs [--scales 1,10,100] [--runs 30] [--backend postgresql|sqlite]
//                                  [--out docs/benchmarks.md | --no-write]
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { median } from '../lib/proc.mjs';

const require = createRequire(import.meta.url);
const REPO = path.resolve(import.meta.dirname, '../..');
const { startFerretDb } = require('@coffer/local-stack');
const { connectMongo } = require('@coffer/common');
const { orchestratorModels } = require(`${REPO}/services/backup-orchestrator/dist/model.js`);
const { mongoStores } = require(`${REPO}/services/backup-orchestrator/dist/store/index.js`);
const { scheduler } = require(`${REPO}/services/backup-orchestrator/dist/jobs/scheduler.js`);
const { retention } = require(`${REPO}/services/backup-orchestrator/dist/jobs/retention.js`);
const { autoSlotKey, scheduleSlot } = require(`${REPO}/services/backup-orchestrator/dist/domain/rules.js`);
const { dueFields } = require(`${REPO}/services/backup-orchestrator/dist/domain/due-bucket.js`);
const { auditModels } = require(`${REPO}/services/audit/dist/model.js`);
const { auditStore } = require(`${REPO}/services/audit/dist/store.js`);
const { ObjectId } = require('mongodb');

const { values: opts } = parseArgs({
  options: {
    scales: { type: 'string', default: '1,10,100' },
    runs: { type: 'string', default: '30' },
    backend: { type: 'string', default: 'postgresql' },
    out: { type: 'string', default: path.join(REPO, 'docs/benchmarks.md') },
    'no-write': { type: 'boolean', default: false },
    // PostgreSQL's autovacuum gets to the freshly seeded tables (and their GIN pending lists)
    // before anything is measured, as it would have long since on a database that grew slowly.
    'settle-s': { type: 'string', default: '90' },
    'skip-jobs': { type: 'boolean', default: false },
  },
});
const scales = opts.scales.split(',').map(Number);
const RUNS = Number(opts.runs);
const USERS_AT_1X = 100;
const PER_USER = 10;
const HOUR = 3_600_000;
const now = new Date();
/**
 * Databases (and accounts) due at each measured tick, the same at every scale: the rest are filed
 * at their next slot (their next retention pass), as between two ticks of a running service.
 */
const DUE = 10;
const slot = scheduleSlot(now, 24, HOUR);
const dueNow = dueFields(now);
const log = { info() {}, warn() {}, debug() {} };

const hex = () => new ObjectId().toHexString();
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

/** Inserts `count` documents made by `make(i)` in batches (the driver's insertMany). */
async function seedMany(collection, count, make) {
  for (let i = 0; i < count; i += 1000) {
    const batch = [];
    for (let j = i; j < Math.min(count, i + 1000); j++) batch.push(make(j));
    await collection.insertMany(batch, { ordered: false });
  }
}

/** An audit entry as the audit service writes one for a finished backup. */
const auditEntry = (userId, timestamp) => ({
  userId,
  eventId: crypto.randomUUID(),
  action: 'backup.completed',
  entity: 'backup',
  entityId: hex(),
  actor: 'system',
  details: {},
  timestamp,
});

async function seed(models, audit, users) {
  const ids = Array.from({ length: users }, hex);
  const raw = (m) => m.collection;
  await seedMany(raw(models.Agent), users, (i) => ({
    userId: ids[i],
    instanceId: crypto.randomUUID(),
    name: `web-${i}`,
    hostname: `web-${i}.internal`,
    configId: '',
    platform: 'linux-x64',
    version: '1.0.0',
    databases: ['shop'],
    connected: true,
    lastSeen: now,
    disconnectedAt: null,
    offlineReason: null,
    retired: false,
    createdAt: new Date(now.getTime() - 30 * 24 * HOUR),
  }));
  // The first DUE databases are due; every other one has had today's slot and waits for its end.
  await seedMany(raw(models.Database), users, (i) => ({
    userId: ids[i],
    name: 'shop',
    enabled: true,
    createdAt: new Date(now.getTime() - 30 * 24 * HOUR),
    lastScheduledSlot: i < DUE ? null : autoSlotKey(24, slot.slot),
    ...(i < DUE ? dueNow : dueFields(slot.end)),
  }));
  await seedMany(raw(models.Settings), users, (i) => ({
    userId: ids[i],
    frequency: 24,
    retention: 168,
    retentionLock: false,
    retentionLockOffAt: null,
    retentionMode: 'days',
  }));
  // Backups of the last 5 days: none expired (retention 7 days), all older than the shortest
  // retention, so the sweep visits every user, as it does each minute in production.
  await seedMany(raw(models.Backup), users * PER_USER, (j) => {
    const at = new Date(now.getTime() - (j % PER_USER) * 12 * HOUR - 2 * HOUR);
    const id = hex();
    return {
      _id: new ObjectId(id),
      userId: ids[Math.floor(j / PER_USER)],
      databaseName: 'shop',
      agentId: hex(),
      status: 'completed',
      createdAt: at,
      commandId: crypto.randomUUID(),
      commandSentAt: at,
      startedAt: at,
      completedAt: at,
      error: null,
      absentSince: null,
      type: 'auto',
      size: 1_000_000,
      keyFingerprint: null,
      scheduleSlot: `manual:${id}`,
      deletingSince: null,
      deleteReason: null,
      lockedUntil: null,
      deleteRule: null,
    };
  });
  // Each account's next retention pass: when its oldest backup (110 h old) passes 7 days; the
  // first DUE accounts now.
  await seedMany(raw(models.RetentionDue), users, (i) => ({
    userId: ids[i],
    ...(i < DUE ? dueNow : dueFields(new Date(now.getTime() + 58 * HOUR))),
  }));
  await seedMany(raw(audit.AuditEntry), users * PER_USER, (j) =>
    auditEntry(ids[Math.floor(j / PER_USER)], new Date(now.getTime() - j * 1000)),
  );
  return ids;
}

/** The median of `RUNS` calls, one at a time, after two warm-up calls. */
async function timed(fn) {
  await fn(0);
  await fn(1);
  const xs = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    await fn(i + 2);
    xs.push(ms(t0));
  }
  return median(xs);
}

async function measure(scale) {
  const users = USERS_AT_1X * scale;
  const ferret = await startFerretDb({ backend: opts.backend, timeoutMs: 120_000 });
  const conn = await connectMongo(ferret.url, 'coffer_orchestrator');
  try {
    const models = orchestratorModels(conn);
    const audit = auditModels(conn.useDb('coffer_audit', { useCache: true }));
    await Promise.all([...Object.values(models), ...Object.values(audit)].map((m) => m.init()));
    const t0 = process.hrtime.bigint();
    const ids = await seed(models, audit, users);
    const seedS = ms(t0) / 1000;
    await new Promise((r) => setTimeout(r, Number(opts['settle-s']) * 1000));
    const stores = mongoStores(models);
    const audits = auditStore(audit);
    const pick = (i) => ids[(i * 7919) % ids.length];
    const agents = new Map();
    for (const a of await models.Agent.find({ userId: { $in: ids.slice(0, RUNS + 2) } }).lean())
      agents.set(a.userId, a._id.toHexString());
    const makeScheduler = () =>
      scheduler({
        stores,
        backups: {},
        databases: {},
        dispatch: {},
        plans: {},
        events: { publish: async () => undefined },
        now: () => now,
        hourMs: HOUR,
        firstBackupGraceMinutes: 0,
        heartbeatTimeoutMs: 60_000,
        log,
      });
    const sched = makeScheduler();
    const makeSweep = () =>
      retention({
        stores,
        backups: { finishDeletion: async () => undefined },
        policyOf: async () => ({ hours: 168 }),
        now: () => now,
        log,
      });
    const sweep = makeSweep();
    const result = {
      scale,
      users,
      backups: users * PER_USER,
      seedS,
      'dashboard page': await timed((i) => stores.backups.list(pick(i), 500)),
      'agent registration': await timed((i) =>
        stores.agents.register(
          {
            userId: pick(i),
            instanceId: crypto.randomUUID(),
            name: 'new',
            hostname: 'new.internal',
            configId: '',
            platform: 'linux-x64',
            version: '1.0.0',
            databases: ['shop'],
          },
          now,
          null,
        ),
      ),
      heartbeat: await timed((i) => {
        const userId = ids[i % (RUNS + 2)];
        return stores.agents.heartbeat(userId, agents.get(userId), now, ['shop']);
      }),
      'audit write': await timed((i) => audits.insert(auditEntry(pick(i), now))),
    };
    // The jobs visit only what is due (jobs/due-visitor.ts): the same DUE databases and accounts
    // at every scale, made due again (untimed) before each tick. The first tick of a process also
    // files what is overdue or was never filed (its one full read): done before timing, and timed
    // once on its own.
    if (opts['skip-jobs']) return result;
    const dueIds = ids.slice(0, DUE);
    const makeDue = async () => {
      await models.Database.collection.updateMany(
        { userId: { $in: dueIds } },
        { $set: { ...dueNow, lastScheduledSlot: null } },
      );
      await models.RetentionDue.collection.updateMany({ userId: { $in: dueIds } }, { $set: dueNow });
    };
    const timedTicks = async (fn) => {
      const xs = [];
      for (let i = 0; i < RUNS; i++) {
        await makeDue();
        const s = process.hrtime.bigint();
        await fn();
        xs.push(ms(s));
      }
      return median(xs);
    };
    let t = process.hrtime.bigint();
    await sched.tick();
    result['scheduler first tick (catch-up)'] = ms(t);
    t = process.hrtime.bigint();
    await sweep.tick();
    result['retention first sweep (one-off filing)'] = ms(t);
    // A restarted process: new job instances over the same data (the filing is recorded as done).
    t = process.hrtime.bigint();
    await makeScheduler().tick();
    result['scheduler tick after a restart'] = ms(t);
    t = process.hrtime.bigint();
    await makeSweep().tick();
    result['retention sweep after a restart'] = ms(t);
    result[`scheduler tick (${DUE} due)`] = await timedTicks(() => sched.tick());
    result[`retention sweep (${DUE} due)`] = await timedTicks(() => sweep.tick());
    return result;
  } finally {
    await conn.close();
    await ferret.stop();
  }
}

const ALL_OPS = [
  'dashboard page',
  'agent registration',
  'heartbeat',
  'audit write',
  `scheduler tick (${DUE} due)`,
  `retention sweep (${DUE} due)`,
  'scheduler first tick (catch-up)',
  'scheduler tick after a restart',
  'retention first sweep (one-off filing)',
  'retention sweep after a restart',
];
const OPS = ALL_OPS.filter((op) => !opts['skip-jobs'] || !/tick|sweep/.test(op));
const decimals = (op) => (/catch-up|restart|filing/.test(op) ? 0 : 1);

function table(results) {
  const base = results[0];
  const head = `| operation | ${results.map((r) => `${r.scale}× (${r.backups.toLocaleString('en-US')} backups) ms`).join(' | ')} | ${results
    .slice(1)
    .map((r) => `ratio ${r.scale}×`)
    .join(' | ')} |`;
  const sep = `|${' --- |'.repeat(1 + results.length * 2 - 1)}`;
  const rows = OPS.map(
    (op) =>
      `| ${op} | ${results.map((r) => r[op].toFixed(decimals(op))).join(' | ')} | ${results
        .slice(1)
        .map((r) => (r[op] / base[op]).toFixed(2))
        .join(' | ')} |`,
  );
  return [head, sep, ...rows].join('\n');
}

const results = [];
for (const scale of scales) {
  const r = await measure(scale);
  console.error(`[growth] ${scale}×: ${JSON.stringify(r)}`);
  results.push(r);
}
const md = table(results);
console.log(md);
fs.mkdirSync(path.join(REPO, 'bench/out'), { recursive: true });
fs.writeFileSync(path.join(REPO, 'bench/out/growth.json'), JSON.stringify(results, null, 2));
if (!opts['no-write']) {
  const doc = fs.readFileSync(opts.out, 'utf8');
  const start = doc.indexOf('<!-- growth:start -->');
  const end = doc.indexOf('<!-- growth:end -->');
  if (start < 0 || end < 0)
    throw new Error(`${opts.out} has no <!-- growth:start --> ... <!-- growth:end --> block`);
  fs.writeFileSync(opts.out, `${doc.slice(0, start)}<!-- growth:start -->\n\n${md}\n\n${doc.slice(end)}`);
}
