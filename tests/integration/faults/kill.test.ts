// SIGKILL one piece of a running stack mid-backup or mid-restore, start it again, and check that
// nothing is lost: a backup is completed only with its whole blob, an interrupted job ends (failed
// with a reason, or completed after the restart), the audit log has each entry once, usage equals
// the blobs, and the next backup succeeds. A restore killed half-way says the database may be
// partly restored and which backup to restore again. The filesystem backend; MinIO is s3.test.ts.
import { api, eventually } from '../helpers';
import { cleanupAll, requestRestore, waitAgentActive } from '../pipeline/harness';
import {
  backupMidUpload,
  checkAudit,
  checkBlobsWhole,
  checkNothingPartial,
  checkUsage,
  jobEnded,
  LIMITS,
  nextBackupSucceeds,
  report,
  startFaultWorld,
  stopFaultWorld,
  EVENTS,
  type FaultOutcome,
  type FaultWorld,
} from './kit';

jest.setTimeout(240_000);

let w: FaultWorld;
let baseline: any;
const rows: FaultOutcome[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  w = await startFaultWorld('kill');
  baseline = await nextBackupSucceeds(w);
}, 240_000);

afterAll(async () => {
  report('Faults (SIGKILL, filesystem storage):', rows);
  await cleanupAll();
  await stopFaultWorld(w);
}, 60_000);

/** Kills `name` (a process of the stack, or 'agent') and starts it again. */
async function killAndRestart(name: string): Promise<void> {
  if (name === 'agent') {
    await w.agent.stop('SIGKILL');
    // Back after the reconnect grace: a crashed agent that comes back later than that.
    await sleep(LIMITS.AGENT_RECONNECT_GRACE_MS + 2 * LIMITS.WATCHDOG_TICK_MS);
    await w.agent.start({ wait: true });
    return;
  }
  const proc = w.proc(name);
  await proc.kill('SIGKILL');
  await proc.restart();
  if (name === 'gateway' || name === 'nats' || name === 'redis')
    await waitAgentActive(w.user.token, w.agent.name, 30_000);
  await gatewayReachesEverything();
}

/**
 * The gateway's gRPC channel to a restarted service reconnects with a backoff: until then its
 * calls answer 503 "try again shortly". The checks start once the profile (auth, storage) and
 * the backup list (orchestrator) answer again.
 */
async function gatewayReachesEverything() {
  await eventually(async () => {
    for (const path of ['/api/user/profile', '/api/backups'] as const) {
      const res = await api('GET', path, { token: w.user.token });
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    }
  }, 30_000);
}

async function afterFault(
  fault: string,
  id: string,
  kind: 'backup' | 'restore',
  killedAt: number,
  stage: string,
): Promise<any> {
  const job = await jobEnded(w, id, kind);
  const endedAfterMs = Date.now() - killedAt;
  if (job.status === 'failed') expect(job.error).toMatch(/\S/);
  await checkNothingPartial(w);
  await checkBlobsWhole(w);
  await checkUsage(w);
  await checkAudit(w, id, kind, job.status);
  const next = await nextBackupSucceeds(w);
  rows.push({
    fault,
    killedAt: stage,
    job: `${kind} ${id}`,
    outcome: job.status === 'failed' ? `failed: ${job.error}` : 'completed after the restart',
    endedAfterMs,
    next: `${next.status} (${next.size} B)`,
  });
  return job;
}

// NATS killed mid-upload failed once in five runs on 2026-11-25, and mid-restore once in three on
// 2026-11-26, before the agent resent unacknowledged outcomes and the orchestrator republished the
// ones NATS had refused. Since then: 7 of 7 mid-upload and 12 of 12 mid-restore, some of them on a
// loaded machine, so NATS is in the list again.
const BACKUP_FAULTS = ['agent', 'gateway', 'storage', 'backup-orchestrator', 'redis', 'nats'];

describe.each(BACKUP_FAULTS)('SIGKILL of %s mid-backup', (name) => {
  it('loses nothing, ends the backup and takes the next one', async () => {
    const id = await backupMidUpload(w);
    const killedAt = Date.now();
    await killAndRestart(name);
    await afterFault(name, id, 'backup', killedAt, 'mid-upload');
  });
});

// Every piece a restore depends on once its file is downloaded.
const RESTORE_FAULTS = ['agent', 'gateway', 'storage', 'backup-orchestrator', 'redis', 'nats'];

describe.each(RESTORE_FAULTS)('SIGKILL of %s mid-restore', (name) => {
  it('ends the restore; a failed one says the database may be partly restored and which backup to restore again', async () => {
    const restore = await requestRestore(w.user.token, baseline._id, w.label);
    // Half-way: mongorestore has dropped `events` (the database is whole before: see the repair
    // below) and put some documents back. A restore of this size takes a second or two here, so
    // rather than racing it, the customer's database is frozen the moment that is seen, the
    // piece is killed and started again, and only then does the restore go on.
    await eventually(
      async () => {
        const n = await w.customer.client.db(w.dbName).collection('events').estimatedDocumentCount();
        if (!(n > 0 && n < EVENTS)) throw new Error(`events holds ${n} documents`);
        w.customer.pause();
      },
      60_000,
      25,
    );
    const killedAt = Date.now();
    try {
      await killAndRestart(name);
    } finally {
      w.customer.resume();
    }
    const job = await afterFault(name, restore._id, 'restore', killedAt, 'half-way through mongorestore');
    if (name === 'agent') expect(job.status).toBe('failed');
    if (job.status === 'failed') {
      expect(job.error).toMatch(/may be partly restored/);
      expect(job.error).toContain(new Date(baseline.completedAt).toISOString());
      // What the message says to do works: the same backup again makes the database whole.
      const repair = await requestRestore(w.user.token, baseline._id, w.label);
      expect((await jobEnded(w, repair._id, 'restore')).status).toBe('completed');
    }
    expect(await w.customer.client.db(w.dbName).collection('events').countDocuments()).toBe(EVENTS);
  });
});

describe('SIGKILL of storage as a restore downloads its backup', () => {
  it('ends the restore, leaves the database as it was or whole, and the gateway keeps serving', async () => {
    const restore = await requestRestore(w.user.token, baseline._id, w.label);
    await eventually(async () => {
      const r = ((await api('GET', '/api/backups/restores/all', { token: w.user.token })).body as any[]).find(
        (x) => x._id === restore._id,
      );
      if (r?.status !== 'in-progress') throw new Error(`restore is ${r?.status}`);
    }, 30_000);
    const killedAt = Date.now();
    await killAndRestart('storage');
    const job = await afterFault('storage', restore._id, 'restore', killedAt, 'as the restore downloaded');
    if (job.status === 'failed') expect(job.error).toMatch(/\S/);
    expect(await w.customer.client.db(w.dbName).collection('events').countDocuments()).toBe(EVENTS);
  });
});
