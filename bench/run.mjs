#!/usr/bin/env node
// Coffer benchmark: seeds a database, then measures side by side in one run
//   1. a Coffer backup (real agent, gateway, orchestrator, storage) against raw mongodump
//      --archive and --archive --gzip,
//   2. a Coffer restore against raw mongorestore --archive --drop,
//   3. the agent's encrypt+compress stage alone against cat, gzip and restic on a ~1 GiB archive,
//   4. the agent's peak memory for two database sizes,
//   5. Coffer's ceiling without the database: a replayed archive through agent → gateway → storage,
//   6. a small job (a database under 10 MiB), backup and restore, against plain mongodump and
//      download + mongorestore, cut into its parts,
// and writes a markdown table to docs/benchmarks.md. See bench/README.md.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { distinctArchive, repeatedArchive } from './lib/archives.mjs';
import {
  REPO,
  runAgent,
  startAgent,
  startCoffer,
  storedBlobBytes,
  timedBackup,
  timedRestore,
  newUser,
} from './lib/coffer.mjs';
import { compressedSize } from './lib/compression.mjs';
import { describeEnvironment, requireTools } from './lib/environment.mjs';
import { startFerretDB } from './lib/ferretdb.mjs';
import { cpuOf, fileSize, loadavg, timed } from './lib/proc.mjs';
import { renderReport, withKeptNotes } from './lib/report.mjs';
import { describeDatabase, seedDatabase } from './lib/seed.mjs';
import { measureCeiling } from './lib/ceiling.mjs';
import { measureSmallJob } from './lib/small-job.mjs';
import { measureStage } from './lib/stage.mjs';

const MiB = 1048576;
const SEED_VERSION = 1; // bump when lib/docs.mjs changes what it generates

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'size-mb': { type: 'string' },
    'memory-mb': { type: 'string', default: '50' },
    'stage-mb': { type: 'string', default: '1024' },
    'stage-rounds': { type: 'string', default: '3' },
    'ceiling-mb': { type: 'string', default: '256,1024' },
    'ceiling-backends': { type: 'string', default: 'fs,s3' },
    'small-mb': { type: 'string', default: '4' },
    'small-rounds': { type: 'string', default: '3' },
    work: { type: 'string', default: path.join(REPO, 'bench/out/run') },
    out: { type: 'string', default: path.join(REPO, 'docs/benchmarks.md') },
    'no-write': { type: 'boolean', default: false },
    'reuse-seed': { type: 'boolean', default: false },
    'report-from': { type: 'string' },
    skip: { type: 'string', default: '' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  console.log(`Usage: node bench/run.mjs [--size-mb 200] [--memory-mb 50] [--stage-mb 1024] [--stage-rounds 3]
       [--ceiling-mb 256,1024] [--ceiling-backends fs,s3] [--small-mb 4] [--small-rounds 3]
       [--work DIR] [--out docs/benchmarks.md | --no-write] [--reuse-seed] [--skip backup,restore,stage,memory,ceiling,small]
       [--report-from bench/out/run/results.json]   (re-render a saved run, measure nothing)
See bench/README.md.`);
  process.exit(0);
}

/** Writes the markdown, keeping hand-written notes, formatted as CI's `prettier --check` wants it. */
function writeReport(report) {
  fs.writeFileSync(values.out, withKeptNotes(report, values.out));
  try {
    execFileSync(path.join(REPO, 'node_modules/.bin/prettier'), ['--write', values.out], { stdio: 'ignore' });
  } catch {
    console.warn(`(could not run prettier on ${values.out}: format it before committing)`);
  }
}

if (values['report-from']) {
  // Re-render a saved run (results.json) without measuring anything.
  const saved = JSON.parse(fs.readFileSync(values['report-from'], 'utf8'));
  const report = renderReport(saved);
  console.log(report);
  if (!values['no-write']) writeReport(report);
  process.exit(0);
}

const sizeMb = Number(values['size-mb'] ?? positionals[0] ?? 200);
const memoryMb = Number(values['memory-mb']);
const stageMb = Number(values['stage-mb']);
const stageRounds = Number(values['stage-rounds']);
const smallMb = Number(values['small-mb']);
const smallRounds = Number(values['small-rounds']);
const skip = new Set(values.skip.split(',').filter(Boolean));
for (const [name, v] of Object.entries({ sizeMb, memoryMb, stageMb, stageRounds, smallMb, smallRounds }))
  if (!(v > 0)) throw new Error(`--${name} must be a positive number`);

const work = path.resolve(values.work);
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);
const argv = process.argv.slice(2).join(' ');
const command = `node ${path.relative(REPO, process.argv[1]) || 'bench/run.mjs'}${argv ? ' ' + argv : ''}`;

requireTools();
fs.mkdirSync(work, { recursive: true });
const env = describeEnvironment();
log(
  `Coffer benchmark: ${sizeMb} MiB database, memory at ${memoryMb} and ${sizeMb} MiB, stage on ${stageMb} MiB`,
);
log(
  `machine: ${env.nproc} CPUs, ${env.memoryGiB.toFixed(1)} GiB, load ${env.loadStart.map((l) => l.toFixed(1)).join(' ')}`,
);

const results = { env, command, sizeMb, memoryMb, stageMb, stageRounds, seed: {}, skip: [...skip] };
const save = () => fs.writeFileSync(path.join(work, 'results.json'), JSON.stringify(results, null, 2));
const MAIN_DB = 'bench_main';
const SMALL_DB = 'bench_small';
const SMALL_JOB_DB = 'bench_tiny';

// ----------------------------------------------------------------------------------------------
// The customer's database: a private FerretDB, seeded (or reused with --reuse-seed).
const ferretDir = path.join(work, 'ferretdb');
if (!values['reuse-seed']) fs.rmSync(ferretDir, { recursive: true, force: true });
const ferret = await startFerretDB(ferretDir);
const cleanups = [() => ferret.stop()];
const uriOf = (db) => `${ferret.uri}${db}`;
/** Runs `fn` and adds the CPU time the database server spent meanwhile (where the time goes). */
async function withServerCpu(fn) {
  const before = cpuOf(ferret.pid).selfMs;
  const r = await fn();
  return { ...r, serverCpuMs: cpuOf(ferret.pid).selfMs - before };
}

async function seeded(db, mb) {
  const marker = path.join(ferretDir, `seed-${db}.json`);
  if (values['reuse-seed'] && fs.existsSync(marker)) {
    const m = JSON.parse(fs.readFileSync(marker, 'utf8'));
    if (m.mb === mb && m.version === SEED_VERSION) {
      log(`seed ${db}: reusing ${m.documents} documents (${(m.bytes / MiB).toFixed(0)} MiB)`);
      return { ...m, reused: true };
    }
  }
  log(`seed ${db}: inserting ${mb} MiB of documents into FerretDB ...`);
  let lastLog = Date.now();
  const r = await seedDatabase({
    uri: ferret.uri,
    db,
    bytes: mb * MiB,
    onProgress: ({ documents }) => {
      if (Date.now() - lastLog > 30_000) {
        lastLog = Date.now();
        log(`  ${documents} documents`);
      }
    },
  });
  const m = { mb, version: SEED_VERSION, ...r, counts: await describeDatabase(ferret.uri, db) };
  fs.writeFileSync(marker, JSON.stringify(m));
  log(
    `seed ${db}: ${r.documents} documents, ${(r.bytes / MiB).toFixed(0)} MiB in ${(r.ms / 1000).toFixed(0)} s (${(r.bytes / MiB / (r.ms / 1000)).toFixed(1)} MiB/s)`,
  );
  return { ...m, reused: false };
}

try {
  results.seed.main = await seeded(MAIN_DB, sizeMb);
  if (!skip.has('memory') && memoryMb !== sizeMb) results.seed.small = await seeded(SMALL_DB, memoryMb);
  if (!skip.has('small')) {
    if (smallMb >= 10) throw new Error('--small-mb: the small job is of a database under 10 MiB');
    results.seed.smallJob = await seeded(SMALL_JOB_DB, smallMb);
  }

  // --------------------------------------------------------------------------------------------
  // The service.
  const stackDir = path.join(work, 'stack');
  fs.rmSync(stackDir, { recursive: true, force: true });
  log('starting the Coffer stack (startStack, free ports) ...');
  const coffer = await startCoffer(stackDir);
  cleanups.unshift(() => coffer.stack.stop());
  const base = coffer.url;
  log(`stack up at ${base}`);
  const timeout = Math.max(30 * 60_000, sizeMb * 20_000); // FerretDB reads at well under 1 MiB/s here

  const rawArchive = path.join(work, 'raw.archive');
  const gzArchive = path.join(work, 'raw.archive.gz');
  const dumpArgs = (db, gzip) => [
    `--uri=${uriOf('')}`,
    `--db=${db}`,
    '--archive',
    ...(gzip ? ['--gzip'] : []),
    '--quiet',
  ];

  let mainAgent;
  let mainUser;
  let mainBackup;
  if (!skip.has('backup')) {
    // ------------------------------------------------------------------------------------------
    // Part 1: backup. Order raw → Coffer → gzip, back to back.
    log('part 1: mongodump --archive > raw.archive ...');
    const raw = await withServerCpu(() =>
      timed('mongodump', dumpArgs(MAIN_DB, false), { stdout: rawArchive }),
    );
    results.rawDump = { ...raw, bytes: fileSize(rawArchive), stderr: undefined };
    log(`  ${(raw.ms / 1000).toFixed(1)} s, ${(results.rawDump.bytes / MiB).toFixed(1)} MiB`);

    mainUser = await newUser(base);
    mainAgent = await startAgent(base, mainUser, {
      dir: path.join(work, 'agent-main'),
      label: 'main',
      uri: uriOf(MAIN_DB),
    });
    cleanups.unshift(() => mainAgent.stop());
    const idle = mainAgent.memory();
    log('part 1: Coffer backup (POST /api/backups → completed) ...');
    mainBackup = await withServerCpu(() => timedBackup(base, mainUser, 'main', mainAgent, timeout));
    results.cofferBackup = {
      ...mainBackup,
      idleMemory: idle,
      storedBytes: storedBlobBytes(coffer.storageDir, mainBackup.id) ?? mainBackup.record.size,
    };
    log(
      `  ${(mainBackup.ms / 1000).toFixed(1)} s, ${(results.cofferBackup.storedBytes / MiB).toFixed(1)} MiB stored, agent peak RSS ${(mainBackup.memory.hwmKb / 1024).toFixed(0)} MiB`,
    );

    log('part 1: mongodump --archive --gzip > raw.archive.gz ...');
    const gz = await withServerCpu(() => timed('mongodump', dumpArgs(MAIN_DB, true), { stdout: gzArchive }));
    results.gzipDump = { ...gz, bytes: fileSize(gzArchive), stderr: undefined };
    log(`  ${(gz.ms / 1000).toFixed(1)} s, ${(results.gzipDump.bytes / MiB).toFixed(1)} MiB`);
    // Each job gets a fresh agent process (memory readings per job; nothing left running between parts).
    await mainAgent.stop();
    save();

    for (const [kind, level] of [
      ['zstd', 1],
      ['zstd', 3],
      ['gzip', 6],
    ]) {
      const r = await compressedSize(rawArchive, kind, level);
      (results.compression ??= []).push({ kind, level, ...r });
    }
    save();
  }

  if (!skip.has('memory') && memoryMb !== sizeMb) {
    // ------------------------------------------------------------------------------------------
    // Part 4: the agent's peak RSS for a second database size (fresh user and agent).
    log(`part 4: Coffer backup of the ${memoryMb} MiB database (agent memory) ...`);
    const user = await newUser(base);
    const agent = await startAgent(base, user, {
      dir: path.join(work, 'agent-small'),
      label: 'small',
      uri: uriOf(SMALL_DB),
    });
    const idle = agent.memory();
    const b = await withServerCpu(() => timedBackup(base, user, 'small', agent, timeout));
    results.smallBackup = {
      ...b,
      idleMemory: idle,
      storedBytes: storedBlobBytes(coffer.storageDir, b.id) ?? b.record.size,
    };
    await agent.stop();
    save();
    log(`  ${(b.ms / 1000).toFixed(1)} s, agent peak RSS ${(b.memory.hwmKb / 1024).toFixed(0)} MiB`);
  }

  if (!skip.has('restore') && mainBackup) {
    // ------------------------------------------------------------------------------------------
    // Part 2: restore into the same database, raw first, then Coffer.
    log('part 2: mongorestore --archive --drop < raw.archive ...');
    const r = await withServerCpu(() =>
      timed('mongorestore', [`--uri=${uriOf('')}`, '--archive', '--drop', '--quiet'], { stdin: rawArchive }),
    );
    results.rawRestore = { ...r, stderr: undefined, counts: await describeDatabase(ferret.uri, MAIN_DB) };
    save();
    log(`  ${(r.ms / 1000).toFixed(1)} s`);
    mainAgent = await runAgent(base, mainUser, { dir: mainAgent.dir, name: mainAgent.name });
    log('part 2: Coffer restore (POST /api/backups/{id}/restore → completed) ...');
    const c = await withServerCpu(() =>
      timedRestore(base, mainUser, mainBackup.id, 'main', mainAgent, timeout),
    );
    results.cofferRestore = { ...c, counts: await describeDatabase(ferret.uri, MAIN_DB) };
    save();
    log(
      `  ${(c.ms / 1000).toFixed(1)} s, ${c.record.documentsRestored} documents restored, ${c.record.documentsFailed} failed`,
    );
  }
  await mainAgent?.stop();

  if (!skip.has('small')) {
    // ------------------------------------------------------------------------------------------
    // Part 6: a small job, side by side and part by part (fresh user and agent per round).
    log(`part 6: a small job on the ${smallMb} MiB database, ${smallRounds} rounds ...`);
    results.smallJob = await measureSmallJob({
      base,
      uri: uriOf(''),
      db: SMALL_JOB_DB,
      work: path.join(work, 'small-job'),
      rounds: smallRounds,
      log,
    });
    save();
  }
} finally {
  for (const c of cleanups) await c().catch((e) => console.error('cleanup:', e.message));
}

if (!skip.has('stage')) {
  // ----------------------------------------------------------------------------------------------
  // Part 3: the encrypt+compress stage alone (no database, no stack running).
  const rawArchive = path.join(work, 'raw.archive');
  const bytes = stageMb * MiB;
  results.stage = {};
  if (fs.existsSync(rawArchive)) {
    log(`part 3: ${stageMb} MiB input = the real archive repeated ...`);
    const rep = path.join(work, 'stage-repeated.archive');
    const made = await repeatedArchive(rawArchive, rep, bytes);
    results.stage.repeated = {
      ...(await measureStage(rep, path.join(work, 'stage'), stageRounds, log)),
      copies: made.copies,
    };
  }
  log(`part 3: ${stageMb} MiB input = distinct documents in mongodump's archive format ...`);
  const dist = path.join(work, 'stage-distinct.archive');
  await distinctArchive(dist, bytes);
  results.stage.distinct = await measureStage(dist, path.join(work, 'stage'), stageRounds, log);
}
save();

if (!skip.has('ceiling')) {
  // ----------------------------------------------------------------------------------------------
  // Part 5: the whole path without the database (a fresh stack per backend, nothing else running).
  const sizes = values['ceiling-mb'].split(',').map(Number);
  if (!sizes.every((n) => n > 0)) throw new Error('--ceiling-mb must be positive numbers');
  const archives = [];
  for (const mb of sizes) {
    const file = path.join(work, `ceiling-${mb}.archive`);
    log(`part 5: ${mb} MiB of distinct documents in mongodump's archive format ...`);
    await distinctArchive(file, mb * MiB);
    archives.push(file);
  }
  results.ceiling = await measureCeiling({
    archives,
    work,
    backends: values['ceiling-backends'].split(',').filter(Boolean),
    log,
  });
}
save();

results.env.loadEnd = [loadavg()];
save();
const report = renderReport(results);
console.log('\n' + report);
if (!values['no-write']) {
  writeReport(report);
  log(`written to ${path.relative(process.cwd(), values.out)}`);
}
