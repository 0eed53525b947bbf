// A stack of its own for tests of the retention sweeps (retention lock, GFS retention): the sweeps
// run every second or two, so a backdated record is acted on at once; a real agent backs up a
// seeded customer database. Storage is on the fs backend.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, ObjectId } from 'mongodb';
import { startStack, type Stack } from '@coffer/local-stack';
import { seedDatabase } from '../../agent/src/testing/database-fixtures';
import { api, newUser, type TestUser } from './helpers';
import {
  OWN_STACK_ENV,
  REPO,
  backdateBackups,
  cleanupAll,
  requirePrerequisites,
  setupAgent,
  startCustomerDb,
  triggerBackup,
  uniqueName,
  waitBackup,
  type CustomerDb,
} from './pipeline/harness';

export const HOUR = 3_600_000;
export const LABEL = 'shop-db';

export interface SweepStack {
  stack: Stack;
  mongo: MongoClient;
  backups: () => ReturnType<ReturnType<MongoClient['db']>['collection']>;
  /** A new user with an agent for the seeded customer database (label LABEL). */
  customerWithAgent(prefix: string): Promise<TestUser>;
  /** A new manual backup, completed (earlier ones are dated back past the plan's interval first). */
  newBackup(u: TestUser): Promise<any>;
  /**
   * The sweep files each account's next pass by the dates it last saw (jobs/retention.ts): a test
   * that moves dates back by writing records files the pass now, as time passing would have.
   */
  retentionDueNow(userId: string): Promise<void>;
  stop(): Promise<void>;
}

export const oid = (id: string) => new ObjectId(id);

export async function startSweepStack(prefix: string): Promise<SweepStack> {
  requirePrerequisites();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `coffer-${prefix}-`));
  let stack: Stack | undefined;
  let customer: CustomerDb | undefined;
  let mongo: MongoClient | undefined;
  const stop = async () => {
    await cleanupAll();
    await mongo?.close();
    await customer?.stop();
    await stack?.stop();
    if (!process.env.COFFER_KEEP_TEST_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    stack = await startStack({
      repoRoot: REPO,
      dataDir,
      ports: 'free',
      storageBackend: 'fs',
      env: {
        ...OWN_STACK_ENV,
        RETENTION_TICK_MS: '1000',
        STORAGE_SWEEP_INTERVAL_SECONDS: '2',
      },
    });
    // The harness and helpers talk to the stack named here: this file's own, in this worker only.
    Object.assign(process.env, {
      COFFER_BASE_URL: stack.urls.app,
      COFFER_DATA_DIR: dataDir,
      COFFER_MAILDEV_URL: stack.urls.mailWeb,
    });
    customer = await startCustomerDb();
    const dbName = uniqueName(`${prefix.replace(/\W/g, '_')}_`);
    await seedDatabase(customer.client, dbName, { events: 200 });
    const dbUri = customer.uri(dbName);
    mongo = await MongoClient.connect(stack.urls.mongo);
    const backups = () => mongo!.db('coffer_orchestrator').collection('backups');
    return {
      stack,
      mongo,
      backups,
      async customerWithAgent(userPrefix) {
        const user = await newUser(userPrefix);
        await setupAgent(user, [{ label: LABEL, uri: dbUri }]);
        return user;
      },
      async newBackup(u) {
        await backdateBackups(
          backups(),
          { userId: u.id, status: { $ne: 'failed' } },
          new Date(Date.now() - 25 * HOUR),
        );
        const created = await triggerBackup(u.token, LABEL);
        const done = await waitBackup(u.token, created._id);
        expect(done.status).toBe('completed');
        return done;
      },
      async retentionDueNow(userId) {
        const now = new Date();
        await mongo!
          .db('coffer_orchestrator')
          .collection('retention_due')
          .updateOne(
            { userId },
            { $set: { dueAt: now, dueBucket: Math.floor(now.getTime() / 60_000) } },
            { upsert: true },
          );
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The user's audit entries of the first page, newest first. */
export async function auditEntries(u: TestUser): Promise<Array<{ action: string; details: any }>> {
  const res = await api('GET', '/api/user/audit-logs?page=1', { token: u.token });
  return res.body.logs;
}
