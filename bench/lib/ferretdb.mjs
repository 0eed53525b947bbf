// A private FerretDB (SQLite backend) for the benchmark database, apart from the one the Coffer
// stack uses for its own services: the customer's database is a different server in real life.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const canConnect = (port) =>
  new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/** Starts FerretDB on a free port with its data in `dir` (kept, so a seed can be reused). */
export async function startFerretDB(dir, timeoutMs = 60_000) {
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const log = fs.openSync(path.join(dir, 'ferretdb.log'), 'a');
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
    { stdio: ['ignore', log, log] },
  );
  const exited = new Promise((resolve) => child.once('close', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    }
    fs.closeSync(log);
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`ferretdb exited with ${child.exitCode}; see ${dir}/ferretdb.log`);
    if (await canConnect(port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`ferretdb did not listen within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { uri: `mongodb://127.0.0.1:${port}/`, port, pid: child.pid, stop };
}
