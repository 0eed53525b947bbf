// docs/runbook.md, "Backing up Coffer's own databases", works as written: its two shell blocks run
// unchanged but for the `uri=` line (Compose's MongoDB there; here the test stack's FerretDB for
// the backup, an empty FerretDB of the test's own for the restore), with the Database Tools the
// local run installs. The restored databases hold what the stack's held.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import mongoose, { type Connection } from 'mongoose';
import { startFerretDb, TEST_ADMIN, type RunningServer } from '@coffer/local-stack';

const run = promisify(execFile);
const RUNBOOK = path.resolve(__dirname, '../../../docs/runbook.md');
const DATABASES = ['auth', 'orchestrator', 'storage', 'notification', 'audit', 'kb'].map(
  (d) => `coffer_${d}`,
);

let target: RunningServer;
let source: Connection;
let restored: Connection;

beforeAll(async () => {
  target = await startFerretDb();
  source = await mongoose.createConnection(process.env.COFFER_MONGO_URL!).asPromise();
  restored = await mongoose.createConnection(target.url).asPromise();
}, 120_000);
afterAll(async () => {
  await source?.close();
  await restored?.close();
  await target?.stop();
});

/** The `sh` blocks of one section of the runbook, in order. */
function shellBlocks(section: string): string[] {
  const text = fs.readFileSync(RUNBOOK, 'utf8');
  const body = text.split(/^## /m).find((s) => s.startsWith(`${section}\n`));
  if (!body) throw new Error(`no section ${section}`);
  return [...body.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** Collection name -> document count, for one database. */
async function counts(conn: Connection, db: string): Promise<Record<string, number>> {
  const d = conn.useDb(db, { useCache: false }).db!;
  const out: Record<string, number> = {};
  for (const { name } of await d.listCollections().toArray())
    out[name] = await d.collection(name).countDocuments();
  return out;
}

it('backs up every database of the stack and restores them into an empty server', async () => {
  const [backup, restore] = shellBlocks("Backing up Coffer's own databases");
  expect(backup).toMatch(/^uri=.*$/m);
  const withUri = (block: string, uri: string) => block.replace(/^uri=.*$/m, `uri=${JSON.stringify(uri)}`);
  const before = Object.fromEntries(
    await Promise.all(DATABASES.map(async (db) => [db, await counts(source, db)])),
  );

  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'backup-runbook-'));
  try {
    // One shell, as an operator would type it: the restore uses the backup's $stamp.
    const script = `${withUri(backup!, process.env.COFFER_MONGO_URL!)}\nuri=${JSON.stringify(target.url)}\n${restore}`;
    await run('bash', ['-euo', 'pipefail', '-c', script], {
      cwd,
      env: {
        ...process.env,
        PATH: `${path.join(process.env.COFFER_CACHE || path.join(os.homedir(), '.cache/coffer'), 'bin')}:${process.env.PATH}`,
      },
      timeout: 300_000,
    });
    expect(fs.readdirSync(cwd).filter((f) => f.endsWith('.archive'))).toHaveLength(DATABASES.length);
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }

  for (const db of DATABASES) {
    const after = await counts(restored, db);
    // Every collection is back (the stack keeps writing to some meanwhile: their counts move).
    expect({ db, collections: Object.keys(after).sort() }).toEqual({
      db,
      collections: Object.keys(before[db]!).sort(),
    });
  }
  const users = restored.useDb('coffer_auth', { useCache: false }).collection('users');
  expect(await users.findOne({ email: TEST_ADMIN.email })).toMatchObject({ email: TEST_ADMIN.email });
  // Collections nobody writes to while the test runs hold exactly what they held.
  for (const [db, collection] of [
    ['coffer_kb', 'articles'],
    ['coffer_orchestrator', 'migrations'],
  ] as const) {
    expect({ db, collection, n: (await counts(restored, db))[collection] }).toEqual({
      db,
      collection,
      n: before[db]![collection],
    });
  }
});
