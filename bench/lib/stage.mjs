// Part 3: the agent's encrypt+compress stage alone against `cat FILE > /dev/null` and
// `restic backup --stdin`, on the same input file, interleaved round by round so machine noise
// hits all three alike. Reports medians.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { AGENT_EXEC_ARGV } from './coffer.mjs';
import { timed } from './proc.mjs';

const ENCRYPT = path.join(import.meta.dirname, 'encrypt-file.mjs');

const duBytes = (dir) => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);

function median(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return undefined;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

const tools = {
  async cat(input) {
    const r = await timed('cat', [input], { stdout: '/dev/null' });
    return { ...r, outBytes: 0 };
  },
  async coffer(input, work) {
    const out = path.join(work, 'stage.coffer');
    const json = path.join(work, 'stage.json');
    const r = await timed(process.execPath, [...AGENT_EXEC_ARGV, ENCRYPT, input, out], { stdout: json });
    const info = JSON.parse(fs.readFileSync(json, 'utf8'));
    const outBytes = fs.statSync(out).size;
    fs.rmSync(out, { force: true });
    return { ...r, outBytes, maxRssKb: r.maxRssKb ?? info.maxRssKb };
  },
  async gzip(input, work) {
    // GNU gzip at its default level: the compression `mongodump --gzip` adds, without the dump.
    const out = path.join(work, 'stage.gz');
    const r = await timed('gzip', ['-6', '-c', input], { stdout: out });
    const outBytes = fs.statSync(out).size;
    fs.rmSync(out, { force: true });
    return { ...r, outBytes };
  },
  async restic(input, work) {
    const repo = path.join(work, 'restic-repo');
    const cache = path.join(work, 'restic-cache');
    fs.rmSync(repo, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
    const env = {
      RESTIC_PASSWORD: 'coffer-bench-password',
      RESTIC_REPOSITORY: repo,
      RESTIC_CACHE_DIR: cache,
    };
    execFileSync('restic', ['init', '--repository-version', '2'], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    const r = await timed('restic', ['backup', '--stdin', '--stdin-filename', 'archive.bson', '--quiet'], {
      stdin: input,
      env,
    });
    const outBytes = duBytes(repo);
    fs.rmSync(repo, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
    return { ...r, outBytes };
  },
};

export const STAGE_TOOLS = Object.keys(tools);

/** Runs every tool `rounds` times on `input` (rotating the order each round); medians per tool. */
export async function measureStage(input, work, rounds, log = () => undefined) {
  fs.mkdirSync(work, { recursive: true });
  const bytes = fs.statSync(input).size;
  await tools.cat(input); // warm the page cache: every tool then reads from memory
  const runs = Object.fromEntries(STAGE_TOOLS.map((t) => [t, []]));
  for (let round = 0; round < rounds; round++) {
    const order = STAGE_TOOLS.map((_, i) => STAGE_TOOLS[(i + round) % STAGE_TOOLS.length]);
    for (const t of order) {
      const r = await tools[t](input, work);
      runs[t].push(r);
      log(
        `    round ${round + 1} ${t}: ${(r.ms / 1000).toFixed(2)} s, ${(((bytes / r.ms) * 1000) / 1048576).toFixed(0)} MiB/s`,
      );
    }
  }
  const summary = {};
  for (const t of STAGE_TOOLS) {
    const ms = median(runs[t].map((r) => r.ms));
    summary[t] = {
      ms,
      mibPerS: bytes / 1048576 / (ms / 1000),
      cpuMs: median(runs[t].map((r) => r.cpuMs)),
      maxRssKb: median(runs[t].map((r) => r.maxRssKb)),
      outBytes: median(runs[t].map((r) => r.outBytes)),
      load: median(runs[t].map((r) => r.load)),
      all: runs[t].map((r) => r.ms),
    };
  }
  return { bytes, rounds, tools: summary };
}
