import { metricsRegistry } from '@coffer/common';
import { USER, testWorld, commandReport } from '../test-world';

// The orchestrator's job metrics count each job once, where it moved to its end: a repeated
// report from the agent (a reconnect, a retry) republishes the event but is not counted again.

async function sample(name: string, labels: Record<string, string> = {}): Promise<number> {
  for (const line of (await metricsRegistry.metrics()).split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.split(' ').pop());
  }
  return 0;
}

async function running() {
  const w = testWorld();
  const agentId = await w.connectAgent(['shop']);
  const b = await w.backups.trigger(USER, 'shop');
  await w.backups.delivery({ ...commandReport(agentId, b), delivered: true });
  return { w, agentId, b };
}

it('counts a completed backup once, with its duration from the agent’s start and its stored size', async () => {
  const before = {
    jobs: await sample('coffer_jobs_total', { kind: 'backup', outcome: 'completed' }),
    bytes: await sample('coffer_backup_bytes_total'),
    under60: await sample('coffer_backup_duration_seconds_bucket', { outcome: 'completed', le: '60' }),
    under120: await sample('coffer_backup_duration_seconds_bucket', { outcome: 'completed', le: '120' }),
  };
  const { w, agentId, b } = await running();
  w.clock.advance(90_000);
  const report = { userId: USER, agentId, backupId: b.id, size: 4096, keyFingerprint: 'fp' };
  await w.backups.complete(report);
  await w.backups.complete(report);
  expect(await sample('coffer_jobs_total', { kind: 'backup', outcome: 'completed' })).toBe(before.jobs + 1);
  expect(await sample('coffer_backup_bytes_total')).toBe(before.bytes + 4096);
  expect(await sample('coffer_backup_duration_seconds_bucket', { outcome: 'completed', le: '60' })).toBe(
    before.under60,
  );
  expect(await sample('coffer_backup_duration_seconds_bucket', { outcome: 'completed', le: '120' })).toBe(
    before.under120 + 1,
  );
});

it('counts a failed backup as failed, once, and adds no bytes', async () => {
  const failedBefore = await sample('coffer_jobs_total', { kind: 'backup', outcome: 'failed' });
  const bytesBefore = await sample('coffer_backup_bytes_total');
  const { w, agentId, b } = await running();
  await w.backups.fail({ userId: USER, agentId, backupId: b.id, error: 'mongodump failed' });
  await w.backups.fail({ userId: USER, agentId, backupId: b.id, error: 'mongodump failed' });
  expect(await sample('coffer_jobs_total', { kind: 'backup', outcome: 'failed' })).toBe(failedBefore + 1);
  expect(await sample('coffer_backup_bytes_total')).toBe(bytesBefore);
});
