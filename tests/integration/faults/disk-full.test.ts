// Storage's disk fills up during an upload: STORAGE_DIR is a 2 MB tmpfs, smaller than the backup.
// The backup fails with a message, no partial file or record is kept, usage stays unchanged; once
// there is room again the next backup succeeds. Mounting needs root (CAP_SYS_ADMIN): without it
// the test is skipped and says why.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanupAll, triggerBackup } from '../pipeline/harness';
import {
  allowNextBackup,
  checkAudit,
  checkBlobsWhole,
  checkNothingPartial,
  checkUsage,
  jobEnded,
  nextBackupSucceeds,
  report,
  startFaultWorld,
  type FaultOutcome,
  type FaultWorld,
} from './kit';

jest.setTimeout(240_000);

const mount = (args: string[]) => spawnSync('mount', args, { encoding: 'utf8' });
const umount = (dir: string) => spawnSync('umount', [dir], { encoding: 'utf8' });

/** Whether this machine lets the test mount a tmpfs (root in a privileged enough container). */
function canMount(): string | null {
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-faults-probe-'));
  try {
    const r = mount(['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]);
    if (r.status !== 0) return (r.stderr || r.error?.message || `mount exited ${r.status}`).trim();
    umount(probe);
    return null;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}

const whyNot = canMount();
if (whyNot)
  console.warn(`SKIPPED: the disk-full fault needs to mount a tmpfs and cannot (${whyNot}); run as root.`);
const maybe = whyNot ? it.skip : it;

let w: FaultWorld | undefined;
let storageDir = '';
const rows: FaultOutcome[] = [];

afterAll(async () => {
  if (rows.length) report('Faults (disk full):', rows);
  await cleanupAll();
  const dataDir = w?.dataDir;
  if (w) {
    // Unmount before the data folder goes (rm would stop at the busy mount point).
    await w.stack.stop();
    await w.mongo.close().catch(() => undefined);
  }
  if (storageDir) umount(storageDir);
  if (dataDir && !process.env.COFFER_KEEP_TEST_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

maybe('a full disk fails the backup cleanly, keeps nothing partial and leaves usage unchanged', async () => {
  w = await startFaultWorld('diskfull', {
    beforeStack: (dataDir) => {
      storageDir = path.join(dataDir, 'storage');
      fs.mkdirSync(storageDir, { recursive: true });
      const r = mount(['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', storageDir]);
      if (r.status !== 0) throw new Error(`mount tmpfs on ${storageDir}: ${r.stderr}`);
    },
  });
  const before = await checkUsage(w);
  await allowNextBackup(w);
  const since = Date.now();
  const created = await triggerBackup(w.user.token, w.label);
  const job = await jobEnded(w, created._id, 'backup');
  expect(job.status).toBe('failed');
  expect(job.error).toMatch(/ran out of disk space/);
  await checkNothingPartial(w);
  expect(await checkUsage(w)).toBe(before);
  await checkAudit(w, created._id, 'backup', 'failed');

  // Room again: the service recovers without a restart.
  const r = mount(['-o', 'remount,size=256m', storageDir]);
  if (r.status !== 0) throw new Error(`remount ${storageDir}: ${r.stderr}`);
  const next = await nextBackupSucceeds(w);
  await checkBlobsWhole(w);
  await checkUsage(w);
  rows.push({
    fault: 'disk full (2 MB tmpfs as STORAGE_DIR)',
    killedAt: 'whole upload',
    job: `backup ${created._id}`,
    outcome: `failed: ${job.error}`,
    endedAfterMs: Date.now() - since,
    next: `${next.status} (${next.size} B) after making room`,
  });
});
