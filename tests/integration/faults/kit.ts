// The faults suite's kit: a stack of the file's own (it kills pieces of it) with short watchdog
// and sweep times, a customer database big enough that a backup takes seconds, and the checks
// every fault must pass afterwards (blobs whole, jobs ended, audit exact, usage right).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startStack, type Proc, type Stack } from '@coffer/local-stack';
import { seedDatabase } from '../../../agent/src/testing/database-fixtures';
import { api, eventually, newUser, type TestUser } from '../helpers';
import {
  backdateBackups,
  OWN_STACK_ENV,
  REPO,
  requirePrerequisites,
  setupAgent,
  startCustomerDb,
  triggerBackup,
  uniqueName,
  type Agent,
  type CustomerDb,
} from '../pipeline/harness';

/** Short limits so that a vanished agent or upload is judged in seconds, not minutes. */
export const LIMITS = {
  HEARTBEAT_TIMEOUT_MS: 8_000,
  AGENT_RECONNECT_GRACE_MS: 4_000,
  WATCHDOG_TICK_MS: 1_000,
  COMMAND_TIMEOUT_MS: 15_000,
  STORAGE_STALE_UPLOAD_SECONDS: 10,
  STORAGE_SWEEP_INTERVAL_SECONDS: 2,
};
/** How long an interrupted job may take to end: the grace or heartbeat timeout, plus the
 * heartbeat reconciliation's absent window (30 s + 10 s) for jobs an agent forgot, plus slack. */
export const JOB_END_MS = 60_000;
/** `events` documents of ~200 random bytes: a backup of a few MB that takes a few seconds. */
export const EVENTS = 20_000;

export interface FaultWorld {
  stack: Stack;
  dataDir: string;
  customer: CustomerDb;
  user: TestUser;
  agent: Agent;
  label: string;
  dbName: string;
  mongo: MongoClient;
  proc(name: string): Proc;
}

export async function startFaultWorld(
  prefix: string,
  opts: {
    storageBackend?: 'fs' | 's3';
    s3Port?: number;
    env?: NodeJS.ProcessEnv;
    /** Prepares the data folder (e.g. mounts a small filesystem for storage) before the stack starts. */
    beforeStack?: (dataDir: string) => void;
  } = {},
): Promise<FaultWorld> {
  requirePrerequisites();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `coffer-faults-${prefix}-`));
  opts.beforeStack?.(dataDir);
  const stack = await startStack({
    repoRoot: REPO,
    dataDir,
    ports: 'free',
    storageBackend: opts.storageBackend ?? 'fs',
    s3Port: opts.s3Port,
    env: {
      ...OWN_STACK_ENV,
      ...Object.fromEntries(Object.entries(LIMITS).map(([k, v]) => [k, String(v)])),
      ...opts.env,
    },
  });
  // The harness and helpers talk to the stack named here: this file's own, in this worker only.
  Object.assign(process.env, { COFFER_BASE_URL: stack.urls.app, COFFER_DATA_DIR: dataDir });
  const customer = await startCustomerDb();
  const dbName = uniqueName(`${prefix}_`);
  await seedDatabase(customer.client, dbName, { events: EVENTS });
  const user = await newUser(`faults-${prefix}`);
  const label = 'big-db';
  const agent = await setupAgent(user, [{ label, uri: customer.uri(dbName) }]);
  const mongo = await MongoClient.connect(stack.urls.mongo);
  return {
    stack,
    dataDir,
    customer,
    user,
    agent,
    label,
    dbName,
    mongo,
    proc(name) {
      const p = stack.procs.find((x) => x.name === name);
      if (!p) throw new Error(`no process ${name} in ${stack.procs.map((x) => x.name).join(', ')}`);
      return p;
    },
  };
}

export async function stopFaultWorld(w: FaultWorld | undefined) {
  if (!w) return;
  await w.mongo.close().catch(() => undefined);
  await w.stack.stop();
  if (!process.env.COFFER_KEEP_TEST_DATA) fs.rmSync(w.dataDir, { recursive: true, force: true });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Moments to strike at.

/** The storage service's record of the backup's blob (any state), or null. */
export const blobRecord = (w: FaultWorld, backupId: string) =>
  w.mongo.db('coffer_storage').collection('blobs').findOne({ userId: w.user.id, blobId: backupId });

/**
 * Lifts the plan's interval between manual backups (24 h on the free plan) by dating this user's
 * earlier backups a day back: the suite takes one backup per fault.
 */
export async function allowNextBackup(w: FaultWorld): Promise<void> {
  await backdateBackups(
    w.mongo.db('coffer_orchestrator').collection('backups'),
    { userId: w.user.id, status: { $ne: 'failed' } },
    new Date(Date.now() - 25 * 3_600_000),
  );
}

/** Starts a backup and resolves once its bytes are flowing into storage (an 'uploading' blob). */
export async function backupMidUpload(w: FaultWorld): Promise<string> {
  await allowNextBackup(w);
  const created = await triggerBackup(w.user.token, w.label);
  await eventually(async () => {
    const rec = await blobRecord(w, created._id);
    if (rec?.status !== 'uploading')
      throw new Error(`backup ${created._id} not uploading yet: ${rec?.status}`);
  }, 30_000);
  return created._id as string;
}

/** The backup's public record. */
export async function backupOf(w: FaultWorld, id: string): Promise<any> {
  const res = await api('GET', `/api/backups/${id}`, { token: w.user.token });
  if (res.status !== 200) throw new Error(`GET backup ${id}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Waits (through restarts: the gateway may be down a moment) until the job ended. */
export async function jobEnded(w: FaultWorld, id: string, kind: 'backup' | 'restore'): Promise<any> {
  return eventually(async () => {
    const job =
      kind === 'backup'
        ? await backupOf(w, id)
        : ((await api('GET', '/api/backups/restores/all', { token: w.user.token })).body as any[]).find(
            (r) => r._id === id,
          );
    if (!['completed', 'failed'].includes(job?.status))
      throw new Error(
        `${kind} ${id} is still ${JSON.stringify(job)}\nagent:\n${w.agent.output.slice(-2000)}`,
      );
    return job;
  }, JOB_END_MS);
}

// ---------------------------------------------------------------------------------------------
// The checks after every fault.

/** Every completed backup of the user has its whole blob: committed, same size, same bytes. */
export async function checkBlobsWhole(w: FaultWorld): Promise<void> {
  const list = (await api('GET', '/api/backups', { token: w.user.token })).body;
  const backups: any[] = list as any[];
  for (const b of backups.filter((x) => x.status === 'completed')) {
    const rec = await blobRecord(w, b._id);
    expect({ id: b._id, status: rec?.status, size: rec?.size }).toEqual({
      id: b._id,
      status: 'committed',
      size: b.size,
    });
    const res = await fetch(`${w.stack.urls.app}/api/backups/${b._id}/download`, {
      headers: { authorization: `Bearer ${w.user.token}` },
    });
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect({
      id: b._id,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    }).toEqual({
      id: b._id,
      size: b.size,
      sha256: rec!.sha256,
    });
  }
}

/** Nothing half-uploaded stays: no blob record short of 'committed', no temp file (fs backend). */
export async function checkNothingPartial(w: FaultWorld): Promise<void> {
  await eventually(
    async () => {
      const left = await w.mongo
        .db('coffer_storage')
        .collection('blobs')
        .find({ userId: w.user.id, status: { $ne: 'committed' } })
        .toArray();
      if (left.length) throw new Error(`blobs not committed: ${JSON.stringify(left)}`);
      const tmp = path.join(w.dataDir, 'storage', 'tmp');
      const files = fs.existsSync(tmp) ? fs.readdirSync(tmp) : [];
      if (files.length) throw new Error(`temp files left in ${tmp}: ${files.join(', ')}`);
    },
    (LIMITS.STORAGE_STALE_UPLOAD_SECONDS + 3 * LIMITS.STORAGE_SWEEP_INTERVAL_SECONDS) * 1000 + 10_000,
  );
}

/** The usage the user sees equals the committed blobs and the completed backups' sizes. */
export async function checkUsage(w: FaultWorld): Promise<number> {
  return eventually(async () => {
    const blobs = await w.mongo
      .db('coffer_storage')
      .collection('blobs')
      .find({ userId: w.user.id, status: 'committed' })
      .toArray();
    const list = (await api('GET', '/api/backups', { token: w.user.token })).body;
    const backups: any[] = list as any[];
    const completed = backups.filter((b) => b.status === 'completed');
    const profile = (await api('GET', '/api/user/profile', { token: w.user.token })).body;
    const blobBytes = blobs.reduce((s, b) => s + (b.size as number), 0);
    const backupBytes = completed.reduce((s, b) => s + (b.size as number), 0);
    expect({ usage: profile.storageUsed, blobs: blobs.length }).toEqual({
      usage: blobBytes,
      blobs: completed.length,
    });
    expect(backupBytes).toBe(blobBytes);
    return blobBytes;
  }, 20_000);
}

/** Exactly one created/initiated entry and one outcome entry for the job: none lost, none doubled. */
export async function checkAudit(
  w: FaultWorld,
  id: string,
  kind: 'backup' | 'restore',
  outcome: 'completed' | 'failed',
): Promise<void> {
  const prefix = kind === 'backup' ? 'BACKUP' : 'RESTORE';
  const expected =
    kind === 'backup'
      ? { [`${prefix}_CREATED`]: 1, [`${prefix}_${outcome.toUpperCase()}`]: 1 }
      : { RESTORE_REQUESTED: 1, [`${prefix}_${outcome.toUpperCase()}`]: 1 };
  await eventually(async () => {
    const entries = await w.mongo
      .db('coffer_audit')
      .collection('audit_entries')
      .find({ userId: w.user.id, entityId: id })
      .toArray();
    const counts: Record<string, number> = {};
    for (const e of entries) counts[e.action] = (counts[e.action] ?? 0) + 1;
    // RESTORE_INITIATED is there only when the agent took the job before the fault; never twice.
    if (counts.RESTORE_INITIATED !== undefined) {
      expect(counts.RESTORE_INITIATED).toBe(1);
      delete counts.RESTORE_INITIATED;
    }
    expect(counts).toEqual(expected);
  }, 30_000);
  // Redelivery after a restart must not add entries later either.
  await sleep(1_500);
  const again = await w.mongo
    .db('coffer_audit')
    .collection('audit_entries')
    .countDocuments({ userId: w.user.id, entityId: id, action: { $ne: 'RESTORE_INITIATED' } });
  expect(again).toBe(2);
}

/** The backup after the fault succeeds: the service is whole again. */
export async function nextBackupSucceeds(w: FaultWorld): Promise<any> {
  await allowNextBackup(w);
  const created = await triggerBackup(w.user.token, w.label);
  const done = await jobEnded(w, created._id, 'backup');
  if (done.status !== 'completed')
    throw new Error(
      `the backup after the fault failed: ${done.error}\nagent:\n${w.agent.output.slice(-3000)}`,
    );
  return done;
}

// ---------------------------------------------------------------------------------------------
// What happened, one line per fault, printed at the end of the file.

export interface FaultOutcome {
  fault: string;
  killedAt: string;
  job: string;
  outcome: string;
  endedAfterMs: number;
  next: string;
}

export function report(title: string, rows: FaultOutcome[]) {
  const lines = rows.map(
    (r) =>
      `- ${r.fault}: killed ${r.killedAt}; ${r.job} → ${r.outcome} (${(r.endedAfterMs / 1000).toFixed(1)} s after the kill); next backup ${r.next}`,
  );
  console.log(`${title}\n${lines.join('\n')}`);
}
