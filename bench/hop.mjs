// The hop alone (issue 26, "A hop that only forwards"): what the gateway and storage spend, in CPU
// seconds per GiB of a backup, against the encrypt stage alone on the same file in the same run.
// A replayed archive (as in part 5) goes agent → gateway → storage on a fresh stack per backend;
// only the backup is measured. With `--before DIR` each round also runs the same backups with the
// gateway and storage of another build (DIR/gateway/dist, DIR/storage/dist; DIR inside the
// repository so their imports resolve), interleaved, so a change is compared under the same load.
//
//   node bench/hop.mjs --mb 256 --backends fs,s3 --rounds 2 [--before bench/out/before]
// (Node 24 and the project's tools on PATH, as for bench/run.js; built workspaces.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { distinctArchive } from './lib/archives.mjs';
import { stageAlone } from './lib/ceiling.mjs';
import { newUser, startAgent, startCoffer, timedBackup } from './lib/coffer.mjs';
import { cpuOf } from './lib/proc.mjs';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '256' },
    backends: { type: 'string', default: 'fs,s3' },
    rounds: { type: 'string', default: '1' },
    before: { type: 'string' },
    work: { type: 'string', default: 'bench/out/hop' },
  },
});
const work = path.resolve(values.work);
fs.mkdirSync(work, { recursive: true });
const archive = path.join(work, `replay-${values.mb}.archive`);
if (!fs.existsSync(archive)) await distinctArchive(archive, Number(values.mb) * 1024 ** 2);
const GiB = fs.statSync(archive).size / 1024 ** 3;
const builds = values.before ? { before: path.resolve(values.before), after: undefined } : { now: undefined };

/** One backup of the archive through a fresh stack: CPU-s per GiB of each process. */
async function backupCpu(backend, buildDir) {
  const dir = path.join(work, `stack-${backend}`);
  fs.rmSync(dir, { recursive: true, force: true });
  const serviceDirs = buildDir && {
    gateway: path.join(buildDir, 'gateway'),
    storage: path.join(buildDir, 'storage'),
  };
  const coffer = await startCoffer(dir, { storageBackend: backend, serviceDirs });
  let agent;
  try {
    const user = await newUser(coffer.url);
    agent = await startAgent(coffer.url, user, {
      dir: path.join(work, `agent-${backend}`),
      label: 'replay',
      uri: 'mongodb://127.0.0.1:9/bench', // never connected to: the replay replaces mongodump
      noCheck: true,
      standIns: { replayArchive: archive },
    });
    const pidOf = (name) => coffer.stack.procs.find((p) => p.name === name)?.child.pid;
    const procs = { gateway: pidOf('gateway'), storage: pidOf('storage'), agent: agent.pid };
    const snap = () => Object.fromEntries(Object.entries(procs).map(([n, pid]) => [n, cpuOf(pid).selfMs]));
    const before = snap();
    const backup = await timedBackup(coffer.url, user, 'replay', agent, 30 * 60_000);
    const after = snap();
    const cpu = Object.fromEntries(Object.keys(procs).map((n) => [n, (after[n] - before[n]) / 1000 / GiB]));
    return { ms: backup.ms, cpu, hop: cpu.gateway + cpu.storage, load: os.loadavg()[0] };
  } finally {
    await agent?.stop().catch(() => undefined);
    await coffer.stack.stop();
  }
}

const results = { mb: Number(values.mb), loadStart: os.loadavg()[0], rounds: [] };
for (let r = 0; r < Number(values.rounds); r++) {
  const alone = await stageAlone(archive, path.join(work, 'stage'));
  const stage = alone.encrypt.cpuMs / 1000 / GiB;
  console.log(`round ${r + 1}: encrypt stage alone ${stage.toFixed(2)} CPU-s/GiB`);
  const runs = [];
  for (const [build, dir] of Object.entries(builds))
    for (const backend of values.backends.split(',')) {
      const run = { build, backend, ...(await backupCpu(backend, dir)) };
      runs.push(run);
      console.log(
        `  ${build} ${backend}: gateway ${run.cpu.gateway.toFixed(2)} + storage ${run.cpu.storage.toFixed(2)} = ${run.hop.toFixed(2)} CPU-s/GiB, ${(run.hop / stage).toFixed(2)}× the stage (load ${run.load.toFixed(1)})`,
      );
    }
  results.rounds.push({ stage, runs });
}
results.loadEnd = os.loadavg()[0];
fs.writeFileSync(path.join(work, 'results.json'), JSON.stringify(results, null, 2));
