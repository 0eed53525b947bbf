import type { Connection, Model } from 'mongoose';
import { z } from 'zod';
import { baseEnv, loadConfig } from './config.js';
import { isDuplicateKeyError, connectMongo } from './mongo.js';
import { createLogger, type Logger } from './logger.js';

/**
 * A change to the records a service already holds (a backfill, a rename), applied once per
 * database by the migrate step and recorded by its id. `up` must be safe to run again: a migrate
 * step stopped between `up` and the record runs it a second time.
 */
export interface DataMigration {
  id: string;
  up(conn: Connection): Promise<void>;
}

/** A service's database: the models it declares (with their indexes) and its data migrations. */
export interface ServiceDatabase<M> {
  models(conn: Connection): M;
  migrations?: readonly DataMigration[];
}

/** `{ _id: <migration id>, appliedAt }`, one document per applied data migration. */
export const MIGRATIONS_COLLECTION = 'migrations';

export interface MigrateResult {
  /** Collections whose declared indexes now exist. */
  collections: string[];
  /** Data migrations this run applied (the others were recorded already). */
  applied: string[];
}

// A service's models object (an interface: no index signature), each value a mongoose model.
type AnyModels<M = unknown> = { [K in keyof M]: Model<any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

function migrationRecords(conn: Connection) {
  return conn.collection<{ _id: string; appliedAt: Date }>(MIGRATIONS_COLLECTION);
}

/** Ids of the migrations the database has no record of, in their order. */
export async function pendingMigrations(
  conn: Connection,
  migrations: readonly DataMigration[],
): Promise<string[]> {
  if (!migrations.length) return [];
  const done = await migrationRecords(conn)
    .find({ _id: { $in: migrations.map((m) => m.id) } }, { projection: { _id: 1 } })
    .toArray();
  const recorded = new Set(done.map((d) => d._id));
  return migrations.filter((m) => !recorded.has(m.id)).map((m) => m.id);
}

/**
 * Creates every declared index (an existing one is left as it is) and applies the data migrations
 * not yet recorded, in order. A second run changes nothing. Dropping or changing an index is a data
 * migration of its own: createIndexes never removes one.
 */
export async function migrateDatabase(
  conn: Connection,
  models: object,
  migrations: readonly DataMigration[],
  log?: Pick<Logger, 'info'>,
): Promise<MigrateResult> {
  const collections: string[] = [];
  for (const model of Object.values(models) as Model<unknown>[]) {
    await model.createCollection().catch((err: unknown) => {
      // Already there: the usual case after the first run.
      if (!/already exists/i.test((err as Error).message)) throw err;
    });
    await model.createIndexes();
    collections.push(model.collection.collectionName);
  }
  const applied: string[] = [];
  for (const id of await pendingMigrations(conn, migrations)) {
    const migration = migrations.find((m) => m.id === id)!;
    log?.info({ migration: id }, 'applying data migration');
    await migration.up(conn);
    await migrationRecords(conn)
      .insertOne({ _id: id, appliedAt: new Date() })
      .catch((err: unknown) => {
        // Another migrate run recorded it meanwhile; `up` is safe to repeat.
        if (!isDuplicateKeyError(err)) throw err;
      });
    applied.push(id);
  }
  return { collections, applied };
}

export interface OpenDatabaseOptions {
  NODE_ENV: string;
  MONGODB_URI: string;
  /** Production: how long a start waits for the migrate step to record this version's migrations. */
  MIGRATE_WAIT_SECONDS?: number;
}

/**
 * A service's database at start-up. In production no index is built (mongoose autoIndex off: the
 * migrate step builds them before a rollout, so a start never locks a large collection) and the
 * service waits until the migrate step has recorded every data migration it knows of. Elsewhere
 * (the local run, tests) the start migrates itself.
 */
export async function openServiceDatabase<M extends AnyModels<M>>(
  config: OpenDatabaseOptions,
  dbName: string,
  database: ServiceDatabase<M>,
  log: Pick<Logger, 'info' | 'warn'>,
): Promise<{ conn: Connection; models: M }> {
  const production = config.NODE_ENV === 'production';
  // Never mongoose's own background index builds: the migrate step (or, below, the start) builds them.
  const conn = await connectMongo(config.MONGODB_URI, dbName, { autoIndex: false });
  const models = database.models(conn);
  const migrations = database.migrations ?? [];
  try {
    if (!production) {
      await migrateDatabase(conn, models, migrations, log);
    } else {
      await waitForMigrations(conn, dbName, migrations, (config.MIGRATE_WAIT_SECONDS ?? 300) * 1000, log);
      // init() only creates missing collections (autoIndex is off).
      await Promise.all((Object.values(models) as Model<unknown>[]).map((m) => m.init()));
    }
  } catch (err) {
    await conn.close();
    throw err;
  }
  return { conn, models };
}

async function waitForMigrations(
  conn: Connection,
  dbName: string,
  migrations: readonly DataMigration[],
  timeoutMs: number,
  log: Pick<Logger, 'warn'>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let warned = false; ; warned = true) {
    const pending = await pendingMigrations(conn, migrations);
    if (!pending.length) return;
    if (Date.now() >= deadline) {
      throw new Error(
        `database ${dbName} lacks data migrations ${pending.join(', ')}: run this version's migrate step ` +
          '(docs/operations.md, "Upgrades")',
      );
    }
    if (!warned) log.warn({ db: dbName, pending }, 'waiting for the migrate step');
    await new Promise((r) => setTimeout(r, Math.min(2000, Math.max(0, deadline - Date.now()))));
  }
}

/**
 * The migrate command of a service's image (`node dist/migrate.js`): builds the indexes and applies
 * the data migrations of the service's database, then exits 0; any failure exits 1. It reads only
 * LOG_LEVEL, MONGODB_URI and the database setting `dbEnv` names, so the step needs no other secret.
 */
export async function runMigrate<M extends AnyModels<M>>(
  service: string,
  dbEnv: Record<string, z.ZodType<string>>,
  database: ServiceDatabase<M>,
  env = process.env,
): Promise<void> {
  const config = loadConfig(
    `${service}-migrate`,
    z.object({ LOG_LEVEL: baseEnv.LOG_LEVEL, MONGODB_URI: baseEnv.MONGODB_URI, ...dbEnv }),
    env,
  ) as { LOG_LEVEL: string; MONGODB_URI: string } & Record<string, string>;
  const dbName = config[Object.keys(dbEnv)[0]!]!;
  const log = createLogger(`${service}-migrate`, config.LOG_LEVEL);
  try {
    const conn = await connectMongo(config.MONGODB_URI, dbName, { autoIndex: false });
    try {
      const result = await migrateDatabase(conn, database.models(conn), database.migrations ?? [], log);
      log.info({ db: dbName, ...result }, 'migrated');
    } finally {
      await conn.close();
    }
  } catch (err) {
    log.fatal({ err, db: dbName }, 'migrate failed');
    process.exit(1);
  }
}
