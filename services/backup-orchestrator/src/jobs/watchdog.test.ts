import { USER, testWorld, commandReport } from '../test-world';
import { judgeHeartbeat, judgeRunning, RECONNECT_GRACE_MS } from './watchdog';

const limits = { commandTimeoutMs: 60_000, heartbeatTimeoutMs: 60_000, jobMaxHours: 24 };
const now = new Date('2025-06-02T10:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('judging a running job', () => {
  const job = { createdAt: ago(120_000), startedAt: ago(100_000) };
  const agent = (over = {}) => ({
    connected: true,
    lastSeen: ago(5_000),
    disconnectedAt: null,
    retired: false,
    ...over,
  });

  it('leaves a job of a live agent alone', () => {
    expect(judgeRunning(job, agent(), now, limits)).toBeNull();
  });

  it('fails it when the agent has been silent past the heartbeat timeout', () => {
    expect(judgeRunning(job, agent({ lastSeen: ago(61_000) }), now, limits)).toBe(
      `Agent stopped responding (last seen ${ago(61_000).toISOString()})`,
    );
  });

  it('fails it when the agent disconnected and did not reconnect within the grace, saying so', () => {
    const gone = agent({ connected: false, lastSeen: ago(16_000), disconnectedAt: ago(16_000) });
    expect(judgeRunning(job, gone, now, limits)).toBe(
      'The agent disconnected during the backup and did not reconnect within 15 s',
    );
    expect(judgeRunning(job, gone, now, limits, 'restore')).toBe(
      'The agent disconnected during the restore and did not reconnect within 15 s',
    );
    expect(judgeRunning(job, gone, now, { ...limits, reconnectGraceMs: 30_000 })).toBeNull();
  });

  it('leaves it alone while a disconnected agent may still reconnect (a network blip)', () => {
    const blip = agent({ connected: false, lastSeen: ago(14_000), disconnectedAt: ago(14_000) });
    expect(judgeRunning(job, blip, now, limits)).toBeNull();
  });

  it('fails it when the agent was removed, or after the maximum duration', () => {
    expect(judgeRunning(job, null, now, limits)).toMatch(/removed/);
    expect(
      judgeRunning({ createdAt: ago(25 * 3_600_000), startedAt: ago(25 * 3_600_000) }, agent(), now, limits),
    ).toBe('The job did not finish within 24 hours');
  });
});

describe('judging a heartbeat', () => {
  const base = {
    id: 'j1',
    status: 'in-progress',
    createdAt: ago(60_000),
    startedAt: ago(40_000),
    absentSince: null,
  };

  it.each([
    ['listed and running', base, ['j1'], 'keep'],
    ['listed while pending: the command arrived', { ...base, status: 'pending' }, ['j1'], 'start'],
    ['listed again after missing once', { ...base, absentSince: ago(5_000) }, ['j1'], 'present'],
    ['missing but pending', { ...base, status: 'pending' }, [], 'keep'],
    ['missing within 30 s of its start', { ...base, startedAt: ago(20_000) }, [], 'keep'],
    ['missing for the first time', base, [], 'mark-absent'],
    ['missing again soon after', { ...base, absentSince: ago(5_000) }, [], 'keep'],
    ['missing again 10 s later', { ...base, absentSince: ago(10_000) }, [], 'gone'],
  ])('%s → %s', (_what, job, running, verdict) => {
    expect(judgeHeartbeat(job, new Set(running), now)).toBe(verdict);
  });
});

describe('the watchdog', () => {
  async function world() {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    return { w, agentId };
  }

  it('fails a command nobody acknowledged within the timeout, once', async () => {
    const { w } = await world();
    const b = await w.backups.trigger(USER, 'shop');
    w.clock.advance(59_000);
    await expect(w.watchdog.tick()).resolves.toBe(0);
    w.clock.advance(2_000);
    await expect(w.watchdog.tick()).resolves.toBe(1);
    await expect(w.watchdog.tick()).resolves.toBe(0);
    expect(w.stores.backups.rows.get(b.id)).toMatchObject({
      status: 'failed',
      error: 'Agent did not acknowledge the command',
    });
    expect(w.events.of('backup.backup.failed')).toHaveLength(1);
  });

  it('fails running jobs of an agent that stopped responding', async () => {
    const { w, agentId } = await world();
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({ ...commandReport(agentId, b), delivered: true });
    const lastSeen = w.now();
    w.clock.advance(30_000);
    await w.watchdog.tick();
    expect(w.stores.backups.rows.get(b.id)!.status).toBe('in-progress');
    w.clock.advance(31_000);
    await w.watchdog.tick();
    expect(w.stores.backups.rows.get(b.id)).toMatchObject({
      status: 'failed',
      error: `Agent stopped responding (last seen ${lastSeen.toISOString()})`,
    });
  });

  it('fails a job the agent no longer lists, after a confirming heartbeat', async () => {
    const { w, agentId } = await world();
    const b = await w.backups.trigger(USER, 'shop');
    await w.beat(agentId, [b.id]); // listed while pending: started
    expect(w.stores.backups.rows.get(b.id)!.status).toBe('in-progress');
    w.clock.advance(31_000);
    await w.beat(agentId, []);
    expect(w.stores.backups.rows.get(b.id)).toMatchObject({ status: 'in-progress', absentSince: w.now() });
    w.clock.advance(10_000);
    await w.beat(agentId, []);
    expect(w.stores.backups.rows.get(b.id)).toMatchObject({
      status: 'failed',
      error: 'The agent is no longer running this job (it may have restarted)',
    });
  });

  it('forgives a single heartbeat that missed the job', async () => {
    const { w, agentId } = await world();
    const b = await w.backups.trigger(USER, 'shop');
    await w.beat(agentId, [b.id]);
    w.clock.advance(31_000);
    await w.beat(agentId, []);
    w.clock.advance(10_000);
    await w.beat(agentId, [b.id]);
    expect(w.stores.backups.rows.get(b.id)).toMatchObject({ status: 'in-progress', absentSince: null });
  });

  it('fails the running job of an agent that vanished once the reconnect grace has passed', async () => {
    const { w, agentId } = await world();
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({ ...commandReport(agentId, b), delivered: true });
    await w.agents.disconnected(USER, agentId);
    w.clock.advance(RECONNECT_GRACE_MS);
    await expect(w.watchdog.tick()).resolves.toBe(0);
    w.clock.advance(1_000);
    await expect(w.watchdog.tick()).resolves.toBe(1);
    expect(w.stores.backups.rows.get(b.id)).toMatchObject({
      status: 'failed',
      error: 'The agent disconnected during the backup and did not reconnect within 15 s',
    });
    expect(w.events.of('backup.backup.failed')).toHaveLength(1);
  });

  it('keeps the job of an agent that reconnects within the grace', async () => {
    const { w, agentId } = await world();
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({ ...commandReport(agentId, b), delivered: true });
    await w.agents.disconnected(USER, agentId);
    w.clock.advance(3_000);
    expect(await w.connectAgent(['shop'])).toBe(agentId); // the same instance registers again
    w.clock.advance(RECONNECT_GRACE_MS);
    await w.beat(agentId, [b.id]);
    await expect(w.watchdog.tick()).resolves.toBe(0);
    expect(w.stores.backups.rows.get(b.id)!.status).toBe('in-progress');
  });

  it('watches restores the same way', async () => {
    const { w, agentId } = await world();
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({ ...commandReport(agentId, b), delivered: true });
    await w.backups.complete({ userId: USER, agentId, backupId: b.id, size: 1, keyFingerprint: 'fp' });
    const r = await w.restores.request({ userId: USER, backupId: b.id, databaseName: 'shop' });
    w.clock.advance(61_000);
    await w.watchdog.tick();
    expect(w.stores.restores.rows.get(r.id)).toMatchObject({
      status: 'failed',
      error: 'Agent did not acknowledge the command',
    });
    expect(w.events.of('restore.restore.failed')).toHaveLength(1);
  });

  it('says a restore cut off half-way may have left the database partly restored, and which backup to restore again', async () => {
    const { w, agentId } = await world();
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({ ...commandReport(agentId, b), delivered: true });
    const done = await w.backups.complete({
      userId: USER,
      agentId,
      backupId: b.id,
      size: 1,
      keyFingerprint: 'fp',
    });
    const r = await w.restores.request({ userId: USER, backupId: b.id, databaseName: 'shop' });
    await w.restores.delivery({
      ...commandReport(agentId, r),
      delivered: true,
    });
    await w.agents.disconnected(USER, agentId);
    w.clock.advance(RECONNECT_GRACE_MS + 1_000);
    await expect(w.watchdog.tick()).resolves.toBe(1);
    expect(w.stores.restores.rows.get(r.id)).toMatchObject({
      status: 'failed',
      error:
        'The agent disconnected during the restore and did not reconnect within 15 s. ' +
        `The database 'shop' may be partly restored: restore the backup of ${done.completedAt!.toISOString()} again`,
    });
  });
});
