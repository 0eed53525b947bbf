// What the agent asks the database directly, through the MongoDB driver (wire protocol):
// reachability, the collections and their document counts for progress, and dropping
// collections a restore must remove.
import { MongoClient } from 'mongodb';
import { PipelineError } from './errors.js';
import { redactorFor } from './redact.js';

export const CONNECT_TIMEOUT_MS = 10_000;

export interface CollectionInfo {
  name: string;
  /** 'collection', 'view', 'timeseries'. */
  type: string;
  /** Estimated document count (0 for views). */
  count: number;
}

/** Opens a client, runs `fn`, closes it; connection and auth failures become DB_UNREACHABLE. */
export async function withClient<T>(
  uri: string,
  label: string,
  fn: (client: MongoClient) => Promise<T>,
): Promise<T> {
  const scrub = redactorFor(uri);
  let client: MongoClient;
  try {
    // The URI's own settings win; otherwise give up after CONNECT_TIMEOUT_MS, not the driver's 30 s.
    const has = (option: string) => new RegExp(`[?&]${option}=`, 'i').test(uri);
    client = new MongoClient(uri, {
      ...(has('serverSelectionTimeoutMS') ? {} : { serverSelectionTimeoutMS: CONNECT_TIMEOUT_MS }),
      ...(has('connectTimeoutMS') ? {} : { connectTimeoutMS: CONNECT_TIMEOUT_MS }),
      ...(has('appName') ? {} : { appName: 'coffer-agent' }),
    });
    await client.connect();
  } catch (e) {
    throw new PipelineError(
      'DB_UNREACHABLE',
      `Cannot connect to database "${label}": ${scrub((e as Error).message)}`,
    );
  }
  try {
    return await fn(client);
  } catch (e) {
    if (e instanceof PipelineError) throw e;
    const err = e as Error & { codeName?: string };
    const auth = err.codeName === 'Unauthorized' || /auth/i.test(err.message);
    throw new PipelineError(
      'DB_UNREACHABLE',
      `${auth ? 'Not authorized on' : 'Cannot use'} database "${label}": ${scrub(err.message)}`,
    );
  } finally {
    await client.close().catch(() => undefined);
  }
}

function isSystem(name: string): boolean {
  return name.startsWith('system.');
}

/** Lists the user collections of `db` (no system.*). */
export async function listCollections(
  client: MongoClient,
  db: string,
): Promise<Array<{ name: string; type: string }>> {
  const infos = await client.db(db).listCollections({}, { nameOnly: true }).toArray();
  return infos
    .filter((c) => !isSystem(c.name))
    .map((c) => ({ name: c.name, type: (c as { type?: string }).type ?? 'collection' }));
}

/**
 * A collection's document count from its statistics (`$collStats`, summed over shards): cheap on
 * MongoDB and on FerretDB, whose `count` command scans the whole collection. Falls back to
 * estimatedDocumentCount where $collStats is not allowed.
 */
async function estimatedCount(client: MongoClient, db: string, name: string): Promise<number> {
  const coll = client.db(db).collection(name);
  try {
    const stats = await coll.aggregate<{ count?: number }>([{ $collStats: { count: {} } }]).toArray();
    if (stats.length && stats.every((s) => typeof s.count === 'number'))
      return stats.reduce((n, s) => n + s.count!, 0);
  } catch {
    // not supported or not permitted: fall back
  }
  return coll.estimatedDocumentCount();
}

/** Collections of `db` with estimated document counts (the denominator of backup progress). */
export async function collectionCounts(client: MongoClient, db: string): Promise<CollectionInfo[]> {
  const out: CollectionInfo[] = [];
  for (const c of await listCollections(client, db)) {
    out.push({ ...c, count: c.type === 'view' ? 0 : await estimatedCount(client, db, c.name) });
  }
  return out;
}

/** Connects and lists the database's collections: what `db add` uses to check a connection string. */
export async function checkDatabase(uri: string, db: string, label = db): Promise<CollectionInfo[]> {
  return withClient(uri, label, (client) => collectionCounts(client, db));
}
