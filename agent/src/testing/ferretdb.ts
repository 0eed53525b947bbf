// Test helper: a private FerretDB (SQLite backend) on a free port, started and stopped by the
// test itself (architecture §6). Missing binaries make the test fail, with what to do about it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const HOW_TO_GET =
  'Run deploy/local/bootstrap.sh (it builds the pinned ferretdb, mongodump and mongorestore into ~/.cache/coffer/bin) and put that directory on PATH.';

/** Throws a clear error when a binary the FerretDB tests need is not on PATH. */
export function requireOnPath(...names: string[]): void {
  const missing = names.filter((n) => spawnSync('sh', ['-c', 'command -v "$1"', 'sh', n]).status !== 0);
  if (missing.length)
    throw new Error(`${missing.join(', ')} not found on PATH: these tests need them. ${HOW_TO_GET}`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

export interface FerretDB {
  uri: string;
  port: number;
  stop(): Promise<void>;
}

export async function startFerretDB(timeoutMs = 30_000): Promise<FerretDB> {
  requireOnPath('ferretdb');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-ferretdb-'));
  const port = await freePort();
  const child = spawn(
    'ferretdb',
    [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/`,
      `--state-dir=${dir}`,
      '--telemetry=disable',
      `--listen-addr=127.0.0.1:${port}`,
      '--log-level=WARN',
      '--debug-addr=-',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (log = (log + s).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`ferretdb exited with code ${child.exitCode} before accepting connections:\n${log}`);
    }
    if (await canConnect(port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`ferretdb did not accept connections on port ${port} within ${timeoutMs} ms:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { uri: `mongodb://127.0.0.1:${port}/`, port, stop };
}
