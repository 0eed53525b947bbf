// Customer data for the end-to-end tests: every BSON type FerretDB stores (docs/architecture.md,
// "What FerretDB 1.x does not do"),
// awkward collection names, unique/compound/sparse indexes and an empty collection; and exact
// snapshots (raw BSON bytes sorted by _id, index specs) to compare a restore against.
import { randomBytes } from 'node:crypto';
import { BSON, Int32, type Document, type MongoClient } from 'mongodb';
import { everyType } from './bson-fixtures';

/** Documents whose _id is not an ObjectId. */
export type FreeDoc = { _id: unknown; [field: string]: unknown };

/**
 * Seeds `db`: customers (every type; unique, compound and sparse indexes), an empty collection
 * with an index, collections named with a space, dots and non-ASCII letters, and `events`
 * (`events` documents of incompressible payload: many encrypted chunks and progress reports).
 */
export async function seedDatabase(client: MongoClient, db: string, opts: { events?: number } = {}) {
  const d = client.db(db);
  const customers = d.collection('customers');
  await customers.insertMany(
    Array.from({ length: 40 }, (_, i) => ({
      ...everyType(i),
      email: `user${i}@example.com`,
      country: ['NL', 'FR', 'DE'][i % 3],
      age: new Int32(20 + (i % 50)),
      ...(i % 2 ? { nickname: `nick${i}` } : {}),
    })),
  );
  await customers.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
  await customers.createIndex({ country: 1, age: -1 }, { name: 'country_age' });
  await customers.createIndex({ nickname: 1 }, { sparse: true, name: 'nickname_sparse' });

  await d.createCollection('empty');
  await d.collection('empty').createIndex({ never: 1 }, { name: 'never_1' });
  await d.collection<FreeDoc>('with space').insertMany([
    { _id: 'a', v: 1 },
    { _id: 'b', v: 2 },
  ]);
  await d.collection<FreeDoc>('dots.in.name').insertMany([
    { _id: new Int32(1), v: 'x' },
    { _id: new Int32(2), v: 'y' },
  ]);
  await d.collection('ünïcode').insertOne({ name: 'ünïcode', emoji: '🗄️' });
  await insertEvents(client, db, opts.events ?? 1000);
  await d.collection('events').createIndex({ n: 1 }, { unique: true, name: 'n_unique' });
}

/** Adds `count` documents of ~200 random bytes to `events` (batches of 1000). */
export async function insertEvents(client: MongoClient, db: string, count: number, from = 0) {
  const events = client.db(db).collection('events');
  for (let b = 0; b < count; b += 1000) {
    const n = Math.min(1000, count - b);
    await events.insertMany(
      Array.from({ length: n }, (_, i) => ({
        n: new Int32(from + b + i),
        payload: randomBytes(150).toString('base64'),
      })),
    );
  }
}

export interface Snapshot {
  collections: string[];
  /** Raw BSON of every document (hex), sorted by the BSON of its _id. */
  documents: Record<string, string[]>;
  indexes: Record<string, Document[]>;
}

export async function snapshot(client: MongoClient, db: string): Promise<Snapshot> {
  const d = client.db(db);
  const names = (await d.listCollections({}, { nameOnly: true }).toArray())
    .map((c) => c.name)
    .filter((n) => !n.startsWith('system.'))
    .sort();
  const documents: Record<string, string[]> = {};
  const indexes: Record<string, Document[]> = {};
  for (const name of names) {
    const raw = (await d.collection(name).find({}, { raw: true }).toArray()) as unknown as Buffer[];
    documents[name] = raw
      .map((b) => Buffer.from(b))
      .map((b) => ({
        key: Buffer.from(BSON.serialize({ k: BSON.deserialize(b, { promoteValues: false })._id })).toString(
          'hex',
        ),
        hex: b.toString('hex'),
      }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((x) => x.hex);
    indexes[name] = (await d.collection(name).listIndexes().toArray())
      .map(({ ns: _ns, v: _v, ...spec }) => spec)
      .sort((a, b) => String(a.name).localeCompare(String(b.name)));
  }
  return { collections: names, documents, indexes };
}

/** Number of documents in a snapshot. */
export const documentCount = (s: Snapshot) =>
  Object.values(s.documents).reduce((n, docs) => n + docs.length, 0);

/** Changes everything a restore must undo: a dropped collection, edited, new and removed documents. */
export async function mutate(client: MongoClient, db: string): Promise<void> {
  const d = client.db(db);
  await d.collection('with space').drop();
  await d
    .collection('customers')
    .updateMany({ country: 'NL' }, { $set: { changed: true }, $inc: { age: 1 } });
  await d.collection('customers').deleteMany({ country: 'FR' });
  await d.collection('events').insertOne({ n: new Int32(-1), payload: 'added after the backup' });
  await d.collection('added-later').insertOne({ note: 'a collection the backup does not have' });
  await d.collection('empty').insertOne({ never: 'was empty' });
}
