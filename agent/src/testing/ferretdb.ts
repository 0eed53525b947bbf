// Test helper: a customer's database, a private FerretDB (SQLite backend) on a free port, started
// and stopped by the test itself (docs/operations.md, "Running locally") through the shared test
// kit. Missing binaries make the test fail, with what to do about it.
import { spawnSync } from 'node:child_process';
import { startFerretDb } from '@coffer/local-stack';

const HOW_TO_GET =
  'Run deploy/local/bootstrap.sh (it builds the pinned ferretdb, mongodump and mongorestore into ~/.cache/coffer/bin) and put that directory on PATH.';

/** Throws a clear error when a binary the FerretDB tests need is not on PATH. */
export function requireOnPath(...names: string[]): void {
  const missing = names.filter((n) => spawnSync('sh', ['-c', 'command -v "$1"', 'sh', n]).status !== 0);
  if (missing.length)
    throw new Error(`${missing.join(', ')} not found on PATH: these tests need them. ${HOW_TO_GET}`);
}

export interface FerretDB {
  /** Ends with '/', so a database name can be appended. */
  uri: string;
  port: number;
  stop(): Promise<void>;
}

/** A FerretDB in a temporary folder that stop() removes. */
export async function startFerretDB(timeoutMs = 30_000): Promise<FerretDB> {
  // SQLite: a customer's database, whose connection strings may carry users that FerretDB on
  // PostgreSQL would log in to PostgreSQL with.
  const server = await startFerretDb({ timeoutMs, backend: 'sqlite' });
  return { uri: `${server.url}/`, port: server.port, stop: () => server.stop() };
}
