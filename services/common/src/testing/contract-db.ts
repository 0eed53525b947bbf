import type { Connection } from 'mongoose';
import { startFerretDb, type RunningServer } from '@coffer/local-stack';
import { connectMongo } from '../mongo.js';

/**
 * For a store contract test: one FerretDB for the test file (started before its cases, stopped
 * after), and a database of its own for each case, so cases never see each other's records.
 */
export function ferretDbPerCase(name: string): { fresh: () => Connection } {
  let ferret: RunningServer | undefined;
  let conn: Connection | undefined;
  let databases = 0;
  beforeAll(async () => {
    ferret = await startFerretDb();
    conn = await connectMongo(ferret.url, name);
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    await ferret?.stop();
  });
  return { fresh: () => conn!.useDb(`${name}_${++databases}`, { useCache: false }) };
}
