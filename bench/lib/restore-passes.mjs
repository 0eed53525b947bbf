// The restore's two passes over one file, in one process, without download, gateway or storage
// (issue 26): the verification (createRestoreVerifier, what the agent runs while it downloads) and
// the pass into a discarding sink standing for mongorestore (runRestore with `discardArchive`),
// against the decrypt stage alone (createDecryptor) on the same
// file. CPU time (this process, libuv's pool included) is reported beside wall time: on a shared
// machine it moves much less. Rounds interleave the three; medians are printed.
//
//   node bench/lib/restore-passes.mjs ARCHIVE [--agent-dist DIR] [--rounds N]
//
// ARCHIVE is a mongodump archive (part 5 writes bench/out/run/ceiling-256.archive); it is sealed
// once as a bound (version 2) file next to it. --agent-dist runs another build of the agent (a
// checkout of an earlier commit) on the same input: "before" and "after" side by side.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { median } from './proc.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'agent-dist': { type: 'string' }, rounds: { type: 'string', default: '3' } },
});
const archive = positionals[0];
if (!archive)
  throw new Error('usage: node bench/lib/restore-passes.mjs ARCHIVE [--agent-dist DIR] [--rounds N]');
const dist = path.resolve(values['agent-dist'] ?? path.join(import.meta.dirname, '../../agent/dist'));
const require = createRequire(import.meta.url);
const { createEncryptor } = require(`${dist}/crypto/encrypt.js`);
const { createDecryptor } = require(`${dist}/crypto/decrypt.js`);
const { createRestoreVerifier, runRestore } = require(`${dist}/pipeline/restore.js`);
const { ArchiveScanner, archiveNamespaces } = require(`${dist}/pipeline/archive.js`);

const key = crypto.randomBytes(32);
const file = `${archive}.${process.pid}.v2.coffer`;
const discard = () => new Writable({ write: (_c, _e, cb) => cb() });
const read = () => fs.createReadStream(file, { highWaterMark: 256 * 1024 });

async function seal() {
  const scanner = new ArchiveScanner({ strict: true });
  const { stream } = createEncryptor({
    masterKey: key,
    binding: { label: 'bench', backupId: '0123456789abcdef01234567' },
    namespaces: () => archiveNamespaces(scanner),
  });
  await pipeline(fs.createReadStream(archive), scanner, stream, fs.createWriteStream(file));
}

async function measured(fn) {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const value = await fn();
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - wall, cpuMs: (used.user + used.system) / 1000, value };
}

const steps = {
  'decrypt stage alone': () => pipeline(read(), createDecryptor(key).stream, discard()),
  verification: async () => {
    const v = createRestoreVerifier(key);
    await pipeline(read(), v.sink);
    return v.result;
  },
  'pass into the sink': (verified) =>
    runRestore({
      uri: 'mongodb://127.0.0.1:1/',
      dbName: 'x',
      sourceDb: verified.sourceDb,
      file,
      masterKey: key,
      verified,
      discardArchive: true,
    }),
};

// Builds before the switch became an option read it from the environment (--agent-dist).
process.env.COFFER_BENCH_DISCARD_RESTORE = '1';
console.warn = () => undefined; // those builds' notice, once per restore
await seal();
const samples = Object.fromEntries(Object.keys(steps).map((k) => [k, []]));
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    let verified;
    for (const [name, step] of Object.entries(steps)) {
      const m = await measured(() => step(verified));
      if (name === 'verification') verified = m.value;
      samples[name].push(m);
    }
  }
} finally {
  fs.rmSync(file, { force: true });
}
const MiB = fs.statSync(archive).size / 1048576;
const stage = median(samples['decrypt stage alone'].map((s) => s.cpuMs));
console.log(`${dist}: ${MiB.toFixed(0)} MiB archive, medians of ${values.rounds}`);
for (const [name, xs] of Object.entries(samples)) {
  const cpu = median(xs.map((s) => s.cpuMs));
  const wall = median(xs.map((s) => s.wallMs));
  console.log(
    `  ${name.padEnd(20)} cpu ${(cpu / 1000).toFixed(2)} s (${(cpu / stage).toFixed(2)}× the stage), wall ${(wall / 1000).toFixed(2)} s`,
  );
}
