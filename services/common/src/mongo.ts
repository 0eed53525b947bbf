import mongoose, { type Connection } from 'mongoose';

/**
 * Opens this service's own database. Works on FerretDB 1.x and on MongoDB alike: no transactions,
 * no change streams, no TTL or text indexes are ever relied upon (docs/architecture.md, "What FerretDB 1.x does
 * not do").
 */
export async function connectMongo(
  uri: string,
  dbName: string,
  { autoIndex = true }: { autoIndex?: boolean } = {},
): Promise<Connection> {
  const conn = mongoose.createConnection(uri, {
    dbName,
    serverSelectionTimeoutMS: 10_000,
    // FerretDB rejects retryable writes' transaction numbers on some paths; plain writes are idempotent here.
    retryWrites: false,
    // Services open their database with it off (migrate.ts): the migrate step builds indexes.
    autoIndex,
  });
  await conn.asPromise();
  return conn;
}

/**
 * True for a unique-index violation. MongoDB says code 11000; FerretDB 1.x says so for inserts
 * but reports findAndModify violations as a plain SQLite 'UNIQUE constraint failed' message.
 */
export function isDuplicateKeyError(err: unknown): boolean {
  const e = err as { code?: number; message?: string } | null;
  return e?.code === 11000 || /E11000|duplicate key|UNIQUE constraint failed/i.test(e?.message ?? '');
}

const count = { type: Number, required: true } as const;
/** GFS retention counts as a sub-document: a user's setting (orchestrator), a plan's limits (auth). */
export const gfsCountsSchema = () =>
  new mongoose.Schema(
    { hourly: count, daily: count, weekly: count, monthly: count, yearly: count },
    { _id: false },
  );
