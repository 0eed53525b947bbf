// Process measurements: wall time, CPU time and peak RSS of a command (through /usr/bin/time),
// and /proc readings of a running process (peak RSS, CPU) for the agent daemon.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const TIME = '/usr/bin/time';

/**
 * Runs `cmd args` with stdin/stdout optionally redirected from/to files, like a shell's `< IN > OUT`.
 * Resolves with wall ms, CPU ms (user + system) and peak RSS in KiB. Rejects on a non-zero exit.
 */
export async function timed(cmd, args, opts = {}) {
  const useTime = fs.existsSync(TIME);
  const timeFile = path.join(os.tmpdir(), `coffer-bench-time-${process.pid}-${Date.now()}`);
  const stdin = opts.stdin ? fs.openSync(opts.stdin, 'r') : 'ignore';
  const stdout = opts.stdout ? fs.openSync(opts.stdout, 'w') : 'ignore';
  const [bin, argv] = useTime ? [TIME, ['-f', '%e %U %S %M', '-o', timeFile, cmd, ...args]] : [cmd, args];
  const load = os.loadavg()[0];
  const started = performance.now();
  const child = spawn(bin, argv, { stdio: [stdin, stdout, 'pipe'], env: { ...process.env, ...opts.env } });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s) => (stderr = (stderr + s).slice(-8000)));
  const code = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const ms = performance.now() - started;
  for (const fd of [stdin, stdout]) if (typeof fd === 'number') fs.closeSync(fd);
  let cpuMs;
  let maxRssKb;
  if (useTime && fs.existsSync(timeFile)) {
    const last = fs.readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '';
    const [, user, sys, rss] = last.split(' ').map(Number);
    if (Number.isFinite(user)) cpuMs = (user + sys) * 1000;
    if (Number.isFinite(rss)) maxRssKb = rss;
    fs.rmSync(timeFile, { force: true });
  }
  if (code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${stderr.slice(-3000)}`);
  return { ms, cpuMs, maxRssKb, load: (load + os.loadavg()[0]) / 2, stderr };
}

/** VmHWM (peak RSS) and VmRSS of a live process, in KiB. */
export function memoryOf(pid) {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1]);
  return { hwmKb: field('VmHWM'), rssKb: field('VmRSS') };
}

const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

/**
 * CPU time of a live process in ms: its own user + system time, plus that of the children it has
 * waited for (mongodump/mongorestore run by the agent).
 */
export function cpuOf(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime..cstime are fields 14..17
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
  return { selfMs: (utime + stime) * TICK_MS, childrenMs: (cutime + cstime) * TICK_MS };
}

/** The middle value (the upper one of an even count). */
export const median = (xs) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];

export const loadavg = () => os.loadavg()[0];

export const fileSize = (file) => fs.statSync(file).size;
