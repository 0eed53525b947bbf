import { metricsRegistry } from '@coffer/common';
import { USER, testWorld } from '../test-world';

// Metrics that are true right after a (re)start: the series an alert reads exist at 0 before the
// first job ends or the first slot is skipped, so "no completed backup in a day" after a deploy
// that breaks backups sees a flat 0, not "no data". This file runs in a fresh module registry.

async function lines(): Promise<string[]> {
  return (await metricsRegistry.metrics()).split('\n');
}

it('exports every job outcome and every skip reason at 0 once the orchestrator is built', async () => {
  expect((await lines()).filter((l) => l.startsWith('coffer_jobs_total{'))).toEqual([]);
  testWorld();
  const text = await lines();
  for (const kind of ['backup', 'restore'])
    for (const outcome of ['completed', 'failed'])
      expect(text).toContain(`coffer_jobs_total{kind="${kind}",outcome="${outcome}"} 0`);
  expect(text).toContain('coffer_backup_duration_seconds_count{outcome="failed"} 0');
  expect(text).toContain('coffer_restore_duration_seconds_count{outcome="completed"} 0');
  for (const reason of ['no_agent', 'inactive', 'over_limit', 'suspended'])
    expect(text).toContain(`coffer_scheduler_skips_total{reason="${reason}"} 0`);
});

it('counts a skipped slot under its reason', async () => {
  const w = testWorld({ plan: { frequencyLimit: 1 } });
  w.clock.set('2025-06-02T09:45:00Z');
  const agentId = await w.connectAgent(['shop']);
  w.clock.advance(3_600_000);
  await w.beat(agentId);
  await w.scheduler.tick();
  await w.agents.disconnected(USER, agentId);
  const before = (await lines()).find((l) => l.startsWith('coffer_scheduler_skips_total{reason="no_agent"}'));
  await expect(w.scheduler.due(w.events.distinct('backup.schedule.due')[0]!.data)).resolves.toBe('no-agent');
  const after = (await lines()).find((l) => l.startsWith('coffer_scheduler_skips_total{reason="no_agent"}'));
  expect(Number(after!.split(' ').pop())).toBe(Number(before!.split(' ').pop()) + 1);
});
