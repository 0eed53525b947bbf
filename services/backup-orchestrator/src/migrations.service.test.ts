// Service test: the migrate step and a production start against a real FerretDB, with the
// orchestrator's own models and data migrations (the service with the most indexes). The migrate
// step runs as the image runs it: the built dist/migrate.js, with nothing but its database settings.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import mongoose, { type Connection } from 'mongoose';
import { createLogger, MIGRATIONS_COLLECTION, openServiceDatabase } from '@coffer/common';
import { startFerretDb, type RunningServer } from '@coffer/local-stack';
import { orchestratorDatabase } from './migrations';

const run = promisify(execFile);
const log = createLogger('migrate-test', 'silent');
let ferret: RunningServer;
let admin: Connection;
let databases = 0;
const freshName = () => `coffer_migrate_${++databases}`;

beforeAll(async () => {
  ferret = await startFerretDb();
  admin = await mongoose.createConnection(ferret.url).asPromise();
}, 60_000);
afterAll(async () => {
  await admin?.close();
  await ferret?.stop();
});

/** Index names per collection, the `_id` one left out. */
async function indexesOf(dbName: string): Promise<Record<string, string[]>> {
  const db = admin.useDb(dbName, { useCache: false });
  const out: Record<string, string[]> = {};
  for (const { name } of await db.db!.listCollections().toArray()) {
    if (name === MIGRATIONS_COLLECTION) continue;
    const names = (await db.collection(name).listIndexes().toArray()).map((i) => String(i.name));
    out[name] = names.filter((n) => n !== '_id_').sort();
  }
  return out;
}

async function migrationRecords(dbName: string) {
  return admin.useDb(dbName, { useCache: false }).collection(MIGRATIONS_COLLECTION).find().toArray();
}

/** Every index the models declare, by collection (what the migrate step must have built). */
function declaredIndexCounts(conn: Connection): Record<string, number> {
  const models = orchestratorDatabase.models(conn);
  return Object.fromEntries(
    Object.values(models).map((m) => [m.collection.collectionName, m.schema.indexes().length]),
  );
}

/** The image's migrate step: the built `dist/migrate.js`, as the Job and compose run it. */
async function migrate(dbName: string): Promise<string> {
  const { stdout } = await run(process.execPath, [path.join(__dirname, '..', 'dist', 'migrate.js')], {
    env: { PATH: process.env.PATH, MONGODB_URI: ferret.url, ORCHESTRATOR_DB: dbName, LOG_LEVEL: 'info' },
  });
  return stdout;
}

test('migrate on an empty database builds every declared index and records each data migration', async () => {
  const dbName = freshName();
  // A user's settings from before GFS retention: no mode.
  await admin
    .useDb(dbName, { useCache: false })
    .collection('settings')
    .insertOne({ userId: 'u-old', frequency: 24, retention: 72 });

  const output = await migrate(dbName);

  expect(output).toContain('"applied":["0001-settings-retention-mode"]');
  const indexes = await indexesOf(dbName);
  const declared = declaredIndexCounts(admin);
  expect(Object.values(declared).reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
  for (const [collection, count] of Object.entries(declared)) {
    expect({ collection, indexes: indexes[collection]?.length ?? 0 }).toEqual({ collection, indexes: count });
  }
  const records = await migrationRecords(dbName);
  expect(records.map((r) => r._id)).toEqual(['0001-settings-retention-mode']);
  expect(records[0]!.appliedAt).toBeInstanceOf(Date);
  const old = await admin
    .useDb(dbName, { useCache: false })
    .collection('settings')
    .findOne({ userId: 'u-old' });
  expect(old?.retentionMode).toBe('days');
});

test('a second migrate changes nothing', async () => {
  const dbName = freshName();
  await migrate(dbName);
  const indexesBefore = await indexesOf(dbName);
  const recordsBefore = await migrationRecords(dbName);

  const again = await migrate(dbName);

  expect(again).toContain('"applied":[]');
  expect(await indexesOf(dbName)).toEqual(indexesBefore);
  expect(await migrationRecords(dbName)).toEqual(recordsBefore);
});

test('a production start builds no index and waits for the migrate step', async () => {
  const dbName = freshName();
  const production = { NODE_ENV: 'production', MONGODB_URI: ferret.url, MIGRATE_WAIT_SECONDS: 0 };

  // Not migrated: the start refuses, naming the step to run.
  await expect(openServiceDatabase(production, dbName, orchestratorDatabase, log)).rejects.toThrow(
    /0001-settings-retention-mode: run this version's migrate step/,
  );

  // Data migrations recorded but no index built: a production start still builds none.
  await admin
    .useDb(dbName, { useCache: false })
    .collection(MIGRATIONS_COLLECTION)
    .insertOne({ _id: '0001-settings-retention-mode' as never, appliedAt: new Date() });
  const opened = await openServiceDatabase(production, dbName, orchestratorDatabase, log);
  await opened.conn.close();
  const indexes = await indexesOf(dbName);
  expect(Object.keys(indexes)).toEqual(expect.arrayContaining(['agents', 'backups', 'settings']));
  expect(Object.values(indexes).flat()).toEqual([]);

  // The local run and tests: the start migrates itself.
  const local = await openServiceDatabase(
    { ...production, NODE_ENV: 'development' },
    dbName,
    orchestratorDatabase,
    log,
  );
  await local.conn.close();
  expect(Object.values(await indexesOf(dbName)).flat().length).toBeGreaterThan(5);
});

test('a production start that waited proceeds once the migrate step has run', async () => {
  const dbName = freshName();
  const starting = openServiceDatabase(
    { NODE_ENV: 'production', MONGODB_URI: ferret.url, MIGRATE_WAIT_SECONDS: 120 },
    dbName,
    orchestratorDatabase,
    log,
  );
  await migrate(dbName);
  const opened = await starting;
  expect(opened.conn.readyState).toBe(1);
  await opened.conn.close();
});
