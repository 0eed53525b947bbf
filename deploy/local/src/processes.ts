import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface Proc {
  name: string;
  logFile: string;
  /** The running child; restart() replaces it. */
  child: ChildProcess;
  /** The readiness check the starter waited for; restart() waits for it again. */
  ready?: () => Promise<boolean>;
  stop(): Promise<void>;
  /** Sends `signal` (SIGKILL by default: a crash, no clean-up) and resolves once the child is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /**
   * Starts the same command again (same arguments, environment, ports and data folder) after a
   * stop or kill, and waits for `ready` when there is one: fault tests crash and revive one piece.
   */
  restart(timeoutMs?: number): Promise<void>;
}

/**
 * A free TCP port on the loopback address for a server that binds it a few seconds later.
 *
 * Not one the OS picks (listen on 0): those come from the ephemeral range, from which every
 * outgoing connection of this machine also takes its local port, so one of them could take the
 * port before the server binds it (EADDRINUSE). Ports come from below that range instead, and
 * each is claimed by a file naming this process in a folder all stacks of this machine share, so
 * two stacks started at once (the shared test stack and a fault suite's) never pick the same.
 */
export async function freePort(): Promise<number> {
  const [low, high] = UNCLAIMED_RANGE;
  fs.mkdirSync(CLAIMS_DIR, { recursive: true });
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (!claim(port)) continue;
    if (await canBind(port)) return port;
  }
  throw new Error(`no free port between ${low} and ${high} after 200 tries`);
}

const CLAIMS_DIR = path.join(os.tmpdir(), 'coffer-port-claims');

/** [first, last) ports to pick from: 10000 up to the start of the ephemeral range. */
const UNCLAIMED_RANGE: [number, number] = (() => {
  try {
    const start = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);
    if (Number.isInteger(start) && start > 12_000) return [10_000, start];
  } catch {
    // not Linux: the IANA dynamic range starts at 49152
  }
  return [10_000, 32_768];
})();

/** Claims the port for this process; a claim whose process has ended is taken over. */
function claim(port: number): boolean {
  const file = path.join(CLAIMS_DIR, String(port));
  try {
    fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    const owner = Number(fs.readFileSync(file, { encoding: 'utf8', flag: 'a+' }));
    if (owner === process.pid || alive(owner)) return false;
    fs.rmSync(file, { force: true });
    return claim(port);
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** True when something already listens on the port. */
export const portInUse = (port: number) => accepts({ port, host: '127.0.0.1' });

/** True when a connection to the TCP port or the Unix socket path is accepted. */
function accepts(where: net.NetConnectOpts): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(where);
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/** A readiness check: something accepts TCP connections on the port. */
export const listening = (port: number) => () => portInUse(port);

/** A readiness check: something accepts connections on the Unix socket. */
export const listeningOn = (socketPath: string) => () => accepts({ path: socketPath });

/** A readiness check: the URL answers without a server error. */
export function httpOk(url: string): () => Promise<boolean> {
  return () =>
    new Promise((resolve) => {
      http
        .get(url, (res) => {
          res.resume();
          resolve((res.statusCode ?? 500) < 500);
        })
        .on('error', () => resolve(false));
    });
}

/** Polls `check` until it passes; fails early, with the end of its log, when `proc` exits first. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, proc?: Proc) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (proc && proc.child.exitCode !== null) {
      throw new Error(`${what} exited with code ${proc.child.exitCode} before it was ready${logTail(proc)}`);
    }
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${what} was not ready after ${timeoutMs / 1000} s${proc ? logTail(proc) : ''}`);
}

/** The last lines a process logged, to explain why it did not start. */
function logTail(proc: Proc): string {
  try {
    const lines = fs.readFileSync(proc.logFile, 'utf8').trimEnd().split('\n').slice(-8);
    return `; last lines of ${proc.logFile}:\n${lines.join('\n')}`;
  } catch {
    return '';
  }
}

/**
 * Starts a long-running process with its output appended to `<logDir>/<name>.log`. Stopping sends
 * SIGTERM (or `stopSignal`) and, after a grace period, SIGKILL.
 */
export function startProcess(
  name: string,
  cmd: string,
  args: string[],
  opts: {
    logDir: string;
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    /** Runs before every start, restarts included (removes what a crash left behind). */
    beforeStart?: () => void;
    /** Runs after stop() (not after the stop inside restart()). */
    afterStop?: () => void;
    /** What stopping sends first (default SIGTERM). */
    stopSignal?: NodeJS.Signals;
  },
): Proc {
  fs.mkdirSync(opts.logDir, { recursive: true });
  const logFile = path.join(opts.logDir, `${name}.log`);
  const spawnChild = () => {
    opts.beforeStart?.();
    const out = fs.openSync(logFile, 'a');
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    child.on('error', () => {
      // reported through exitCode / waitFor; ENOENT is checked before start
    });
    return child;
  };
  const gone = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
  const exited = (child: ChildProcess) =>
    gone(child) ? Promise.resolve() : new Promise<void>((r) => child.once('exit', () => r()));
  const terminate = () =>
    new Promise<void>((resolve) => {
      const child = proc.child;
      if (gone(child)) return resolve();
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill(opts.stopSignal ?? 'SIGTERM');
    });
  const proc: Proc = {
    name,
    logFile,
    child: spawnChild(),
    async stop() {
      await terminate();
      opts.afterStop?.();
    },
    async kill(signal = 'SIGKILL') {
      const child = proc.child;
      const done = exited(child);
      if (!gone(child)) child.kill(signal);
      await done;
    },
    async restart(timeoutMs = 60_000) {
      if (!gone(proc.child)) await terminate();
      proc.child = spawnChild();
      if (proc.ready) await waitFor(`${name} (restarted)`, proc.ready, timeoutMs, proc);
    },
  };
  return proc;
}

// What deploy/local/bootstrap.sh needs to be asked for to build each binary the tests start.
const BOOTSTRAP_FLAG: Record<string, string> = {
  minio: ' --with-minio',
  'stripe-mock': ' --with-stripe-mock',
  tinyproxy: ' --with-tinyproxy',
};

/** Finds an executable on PATH, or explains how to get it. */
export function which(bin: string): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir, bin);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // keep looking
    }
  }
  throw new Error(
    `'${bin}' was not found on PATH: run deploy/local/bootstrap.sh${BOOTSTRAP_FLAG[bin] ?? ''} ` +
      'and put its bin folder (~/.cache/coffer/bin) on PATH',
  );
}
