// Coffer's own ceiling, without the database: a recorded mongodump archive is replayed as the
// agent's dump (the pipeline's `replayArchive`, injected by agent-run.mjs) through the real path
// agent → gateway → storage, then restored back (download, verify, decrypt, decompress) into a
// sink standing for mongorestore (`discardArchive`). Next to it, in the same run, the
// stage alone on the same file: encrypt-file.mjs and decrypt-file.mjs in their own processes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  AGENT_EXEC_ARGV,
  newUser,
  startAgent,
  startCoffer,
  storedBlobBytes,
  timedBackup,
  timedRestore,
} from './coffer.mjs';
import { cpuOf, memoryOf, timed } from './proc.mjs';

const ENCRYPT = path.join(import.meta.dirname, 'encrypt-file.mjs');
const DECRYPT = path.join(import.meta.dirname, 'decrypt-file.mjs');
const MiB = 1048576;

/** The stage alone on `archive`: encrypt (file → file), then decrypt that file (→ nothing). */
export async function stageAlone(archive, work) {
  fs.mkdirSync(work, { recursive: true });
  const env = { COFFER_BENCH_KEY_HEX: crypto.randomBytes(32).toString('hex') };
  const out = path.join(work, 'alone.coffer');
  const json = path.join(work, 'alone.json');
  await timed('cat', [archive], { stdout: '/dev/null' }); // page cache warm, as for the pipeline
  const enc = await timed(process.execPath, [...AGENT_EXEC_ARGV, ENCRYPT, archive, out], {
    stdout: json,
    env,
  });
  const encInfo = JSON.parse(fs.readFileSync(json, 'utf8'));
  const dec = await timed(process.execPath, [...AGENT_EXEC_ARGV, DECRYPT, out], { stdout: json, env });
  const decInfo = JSON.parse(fs.readFileSync(json, 'utf8'));
  const fileBytes = fs.statSync(out).size;
  const cat = await timed('cat', [out], { stdout: '/dev/null' });
  fs.rmSync(out, { force: true });
  return {
    bytes: encInfo.bytesIn,
    fileBytes,
    encrypt: { ms: enc.ms, cpuMs: enc.cpuMs, maxRssKb: enc.maxRssKb ?? encInfo.maxRssKb },
    decrypt: { ms: dec.ms, cpuMs: dec.cpuMs, maxRssKb: dec.maxRssKb ?? decInfo.maxRssKb },
    catFile: { ms: cat.ms },
  };
}

const cpuMs = (pid) => {
  try {
    return cpuOf(pid).selfMs;
  } catch {
    return undefined;
  }
};
const hwmKb = (pid) => {
  try {
    return memoryOf(pid).hwmKb;
  } catch {
    return undefined;
  }
};

/** CPU ms per watched process between `before` and now. */
function cpuSince(procs, before) {
  return Object.fromEntries(
    Object.entries(procs).map(([name, pid]) => [name, (cpuMs(pid) ?? NaN) - (before[name] ?? NaN)]),
  );
}

/** One backup and one restore of `archive` through a fresh stack with the given storage backend. */
export async function pipelineRun(archive, work, backend, log = () => undefined) {
  const stackDir = path.join(work, `stack-${backend}`);
  fs.rmSync(stackDir, { recursive: true, force: true });
  const coffer = await startCoffer(stackDir, { storageBackend: backend });
  let agent;
  try {
    const user = await newUser(coffer.url);
    agent = await startAgent(coffer.url, user, {
      dir: path.join(work, `agent-${backend}`),
      label: 'replay',
      // Never connected to: the replay replaces mongodump, the discarding sink mongorestore.
      uri: 'mongodb://127.0.0.1:9/bench',
      noCheck: true,
      standIns: { replayArchive: archive, discardRestore: true },
    });
    const pidOf = (name) => coffer.stack.procs.find((p) => p.name === name)?.child.pid;
    const procs = { agent: agent.pid, gateway: pidOf('gateway'), storage: pidOf('storage') };
    if (backend === 's3') procs.minio = pidOf('minio');
    const snap = () => Object.fromEntries(Object.entries(procs).map(([n, pid]) => [n, cpuMs(pid)]));

    let before = snap();
    const backup = await timedBackup(coffer.url, user, 'replay', agent, 30 * 60_000);
    const backupCpu = cpuSince(procs, before);
    const stored = backend === 'fs' ? storedBlobBytes(coffer.storageDir, backup.id) : backup.record.size;
    log(
      `    ${backend} backup: ${(backup.ms / 1000).toFixed(2)} s, ${(fs.statSync(archive).size / MiB / (backup.ms / 1000)).toFixed(0)} MiB/s`,
    );
    before = snap();
    const restore = await timedRestore(coffer.url, user, backup.id, 'replay', agent, 30 * 60_000);
    const restoreCpu = cpuSince(procs, before);
    log(
      `    ${backend} restore: ${(restore.ms / 1000).toFixed(2)} s, ${(fs.statSync(archive).size / MiB / (restore.ms / 1000)).toFixed(0)} MiB/s`,
    );
    const peakKb = Object.fromEntries(Object.entries(procs).map(([n, pid]) => [n, hwmKb(pid)]));
    return {
      backend,
      storedBytes: stored ?? backup.record.size,
      backup: { ms: backup.ms, cpuMs: backupCpu, load: backup.load },
      restore: {
        ms: restore.ms,
        cpuMs: restoreCpu,
        load: restore.load,
        documents: restore.record.documentsRestored,
      },
      peakKb,
    };
  } finally {
    await agent?.stop().catch(() => undefined);
    await coffer.stack.stop();
  }
}

/** For each input size: the stage alone, then the pipeline on each backend, in one run. */
export async function measureCeiling({ archives, work, backends, log = () => undefined }) {
  const out = [];
  for (const archive of archives) {
    const bytes = fs.statSync(archive).size;
    log(`ceiling: ${(bytes / MiB).toFixed(0)} MiB replayed archive`);
    const alone = await stageAlone(archive, path.join(work, 'ceiling'));
    log(
      `    stage alone: encrypt ${(bytes / MiB / (alone.encrypt.ms / 1000)).toFixed(0)} MiB/s, decrypt ${(bytes / MiB / (alone.decrypt.ms / 1000)).toFixed(0)} MiB/s`,
    );
    const runs = [];
    for (const backend of backends)
      runs.push(await pipelineRun(archive, path.join(work, 'ceiling'), backend, log));
    out.push({ bytes, alone, runs });
  }
  return out;
}
