// Seeds the benchmark database with `bytes` of BSON documents (split over three collections) and
// the indexes an app would have. Deterministic: the same seed and size give the same data.
import { MongoClient } from 'mongodb';
import { COLLECTIONS, bsonSize, makeDoc, rng } from './docs.mjs';

const BATCH = 1000;

/** Inserts until each collection holds its share of `bytes`; `parallel` batches in flight. */
export async function seedDatabase({ uri, db, bytes, seed = 1, parallel = 2, onProgress }) {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  const started = performance.now();
  let totalDocs = 0;
  let totalBytes = 0;
  try {
    const database = client.db(db);
    await database.dropDatabase();
    for (const [ci, c] of COLLECTIONS.entries()) {
      const coll = database.collection(c.name);
      const target = bytes * c.share;
      const r = rng(seed * 7919 + ci + 1);
      let done = 0;
      let i = 0;
      const inflight = new Set();
      while (done < target) {
        const docs = [];
        while (docs.length < BATCH && done < target) {
          const d = makeDoc(c.name, i++, r);
          done += bsonSize(d);
          docs.push(d);
        }
        const p = coll.insertMany(docs, { ordered: false }).then(() => {
          inflight.delete(p);
          totalDocs += docs.length;
          onProgress?.({ collection: c.name, documents: totalDocs });
        });
        inflight.add(p);
        if (inflight.size >= parallel) await Promise.race(inflight);
      }
      await Promise.all(inflight);
      totalBytes += done;
      if (c.name === 'customers') await coll.createIndex({ email: 1 }, { unique: true });
      if (c.name === 'orders') await coll.createIndex({ status: 1, createdAt: -1 });
      if (c.name === 'events') await coll.createIndex({ user: 1, at: -1 });
    }
  } finally {
    await client.close();
  }
  return { documents: totalDocs, bytes: totalBytes, ms: performance.now() - started };
}

/**
 * Documents per collection from `$collStats` (FerretDB's `count` scans the whole collection, which
 * takes minutes at 200 MiB here); `countDocuments` only where the stats have no count.
 */
export async function describeDatabase(uri, db) {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  try {
    const database = client.db(db);
    const out = {};
    for (const c of COLLECTIONS) {
      const coll = database.collection(c.name);
      const stats = await coll
        .aggregate([{ $collStats: { count: {} } }])
        .toArray()
        .catch(() => []);
      out[c.name] =
        stats.length && stats.every((st) => typeof st.count === 'number')
          ? stats.reduce((n, st) => n + st.count, 0)
          : await coll.countDocuments();
    }
    return out;
  } finally {
    await client.close();
  }
}
