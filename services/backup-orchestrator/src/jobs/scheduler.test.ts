import { OTHER_USER, USER, testWorld } from '../test-world';
import { scheduleMessageId } from '../events';
import { FIRST_BACKUP_GRACE_MINUTES, scheduleSlot } from '../domain/rules';

const HOUR = 3_600_000;
const GRACE = (FIRST_BACKUP_GRACE_MINUTES * HOUR) / 60;

/** At 10:15, a database added `GRACE` ago: past the time its first backup was left to the user. */
async function world(plan = {}) {
  const w = testWorld({ plan: { frequencyLimit: 1, ...plan } });
  w.clock.set('2025-06-02T09:45:00Z');
  const agentId = await w.connectAgent(['shop']);
  w.clock.advance(GRACE);
  await w.beat(agentId);
  return { w, agentId };
}

/** Hands every due slot published so far to the worker, like the shared durable consumer. */
async function work(w: ReturnType<typeof testWorld>, from = 0) {
  const due = w.events.distinct('backup.schedule.due').slice(from);
  const outcomes = [];
  for (const e of due) outcomes.push(await w.scheduler.due(e.data));
  return outcomes;
}

describe('the scheduler tick', () => {
  it('enqueues the current slot of the default daily schedule with a slot-based message id', async () => {
    const { w } = await world();
    await expect(w.scheduler.tick()).resolves.toBe(1);
    const slot = scheduleSlot(w.now(), 24).slot;
    expect(w.events.of('backup.schedule.due')).toEqual([
      {
        subject: 'backup.schedule.due',
        id: scheduleMessageId(USER, 'shop', slot),
        data: { userId: USER, databaseName: 'shop', slot },
      },
    ]);
  });

  it('publishes the same message id from two replicas in one slot (JetStream keeps one)', async () => {
    const { w } = await world();
    await w.scheduler.tick();
    await w.scheduler.tick();
    expect(w.events.of('backup.schedule.due')).toHaveLength(2);
    expect(w.events.distinct('backup.schedule.due')).toHaveLength(1);
  });

  it('skips databases no active agent reports, and slots that already have a backup', async () => {
    const { w, agentId } = await world();
    await w.backups.trigger(USER, 'shop');
    await expect(w.scheduler.tick()).resolves.toBe(0);
    const other = await world();
    await other.w.agents.disconnected(USER, other.agentId);
    await expect(other.w.scheduler.tick()).resolves.toBe(0);
    expect(agentId).toBeDefined();
  });
});

describe("a new database's first backup", () => {
  async function newcomer() {
    const w = testWorld({ plan: { frequencyLimit: 24 } });
    w.clock.set('2025-06-02T05:11:00Z');
    const agentId = await w.connectAgent(['shop']);
    return { w, agentId };
  }

  it('is left to the user: no automatic backup, and their first Trigger Backup is accepted', async () => {
    const { w, agentId } = await newcomer();
    await expect(w.scheduler.tick()).resolves.toBe(0);
    w.clock.advance(GRACE - 60_000);
    await w.beat(agentId);
    await expect(w.scheduler.tick()).resolves.toBe(0);
    await expect(w.backups.trigger(USER, 'shop')).resolves.toMatchObject({ type: 'manual' });
    // After the grace the slot has the user's backup: nothing more until the next slot.
    w.clock.advance(2 * 60_000);
    await w.beat(agentId);
    await expect(w.scheduler.tick()).resolves.toBe(0);
    expect(w.stores.backups.rows.size).toBe(1);
  });

  it('is taken by the scheduler when the grace passed without a manual backup', async () => {
    const { w, agentId } = await newcomer();
    w.clock.advance(GRACE);
    await w.beat(agentId);
    await expect(w.scheduler.tick()).resolves.toBe(1);
    await expect(work(w)).resolves.toEqual(['created']);
  });

  it('is not created by a due slot delivered while the database is still new (a replica ahead)', async () => {
    const { w, agentId } = await newcomer();
    const slot = scheduleSlot(w.now(), 24).slot;
    await expect(w.scheduler.due({ userId: USER, databaseName: 'shop', slot })).resolves.toBe('new-database');
    expect(w.stores.backups.rows.size).toBe(0);
    // Not marked handled: the slot is still scheduled once the grace is over.
    w.clock.advance(GRACE);
    await w.beat(agentId);
    await expect(w.scheduler.due({ userId: USER, databaseName: 'shop', slot })).resolves.toBe('created');
  });

  it("answers a Trigger Backup during a running scheduled backup with that backup, and a 429 after it names the scheduler's backup", async () => {
    const { w, agentId } = await newcomer();
    w.clock.advance(GRACE);
    await w.beat(agentId);
    await w.scheduler.tick();
    await work(w);
    const [auto] = [...w.stores.backups.rows.values()];
    expect(auto).toMatchObject({ type: 'auto', status: 'pending' });
    await expect(w.backups.trigger(USER, 'shop')).resolves.toMatchObject({ id: auto!.id, type: 'auto' });
    expect(w.stores.backups.rows.size).toBe(1);
    expect(w.events.of('agent.command.requested')).toHaveLength(1);

    const sel = { userId: USER, agentId, backupId: auto!.id };
    await w.backups.beginUpload(sel);
    await w.backups.complete({ ...sel, size: 10, keyFingerprint: 'fp' });
    await expect(w.backups.trigger(USER, 'shop')).rejects.toMatchObject({
      code: 'BACKUP_RATE_LIMITED',
      message:
        'The scheduled backup of shop already ran in this interval. Your plan allows one backup every 24 hours.',
    });
  });
});

describe('the scheduled-backup worker', () => {
  it('creates exactly one auto backup per slot, however often the slot is delivered', async () => {
    const { w, agentId } = await world();
    await w.settings.update(USER, { frequency: 1 });
    await w.scheduler.tick();
    const [due] = w.events.distinct('backup.schedule.due');
    const outcomes = await Promise.all([w.scheduler.due(due!.data), w.scheduler.due(due!.data)]);
    expect(outcomes.sort()).toEqual(['created', 'duplicate'].sort());
    await expect(w.scheduler.due(due!.data)).resolves.toBe('already-handled');
    const backups = [...w.stores.backups.rows.values()];
    expect(backups).toHaveLength(1);
    expect(backups[0]).toMatchObject({
      type: 'auto',
      status: 'pending',
      agentId,
      scheduleSlot: `auto:1h:${due!.data.slot}`,
    });
    expect(w.events.of('agent.command.requested')).toHaveLength(1);
    expect(w.events.of('backup.backup.created')[0]!.data.type).toBe('auto');
    // The next tick in the same slot enqueues nothing more.
    await expect(w.scheduler.tick()).resolves.toBe(0);
  });

  it('sends nothing for a banned (or deleted) account, even while its agent still counts as active', async () => {
    const { w, agentId } = await world();
    w.suspended.add(USER);
    await w.scheduler.tick();
    await expect(work(w)).resolves.toEqual(['suspended']);
    expect(w.events.of('agent.command.requested')).toHaveLength(0);
    expect(w.stores.backups.rows.size).toBe(0);
    // Marked handled: the slot is not enqueued again, and after an unban the next slot runs.
    await expect(w.scheduler.tick()).resolves.toBe(0);
    w.suspended.delete(USER);
    w.clock.advance(24 * HOUR);
    await w.beat(agentId);
    await w.scheduler.tick();
    await expect(work(w, 1)).resolves.toEqual(['created']);
    expect(w.events.of('agent.command.requested')).toHaveLength(1);
  });

  it('runs once per slot across slot boundaries, with two replicas ticking', async () => {
    const { w, agentId } = await world();
    await w.settings.update(USER, { frequency: 1 });
    let seen = 0;
    const tickBoth = async () => {
      await Promise.all([w.scheduler.tick(), w.scheduler.tick()]);
      const fresh = w.events.distinct('backup.schedule.due').slice(seen);
      seen += fresh.length;
      await Promise.all(fresh.flatMap((e) => [w.scheduler.due(e.data), w.scheduler.due(e.data)]));
    };
    for (let i = 0; i < 4; i++) {
      await tickBoth();
      w.clock.advance(HOUR / 2);
      await w.beat(agentId);
      await tickBoth();
      w.clock.advance(HOUR / 2);
      await w.beat(agentId);
    }
    const autos = [...w.stores.backups.rows.values()].filter((b) => b.type === 'auto');
    expect(autos).toHaveLength(4);
    expect(new Set(autos.map((b) => b.scheduleSlot)).size).toBe(4);
    expect(w.events.of('agent.command.requested')).toHaveLength(4);
  });

  it('leaves a slot that has passed to the next tick', async () => {
    const { w } = await world();
    await w.settings.update(USER, { frequency: 1 });
    await w.scheduler.tick();
    w.clock.advance(HOUR);
    await expect(work(w)).resolves.toEqual(['stale']);
    expect(w.stores.backups.rows.size).toBe(0);
  });

  it('waits, without marking the slot, while no agent is connected', async () => {
    const { w, agentId } = await world();
    await w.scheduler.tick();
    await w.agents.disconnected(USER, agentId);
    await expect(work(w)).resolves.toEqual(['no-agent']);
    await w.connectAgent(['shop']);
    await expect(w.scheduler.due(w.events.distinct('backup.schedule.due')[0]!.data)).resolves.toBe('created');
  });

  it('skips inactive databases and respects a plan that shrank below the saved schedule', async () => {
    const { w, agentId } = await world({ dbLimit: 1 });
    await w.settings.update(USER, { frequency: 1 });
    await w.connectAgent(['shop', 'crm']);
    w.clock.advance(GRACE);
    await w.beat(agentId);
    await w.scheduler.tick();
    const outcomes = await work(w);
    expect(outcomes.sort()).toEqual(['created', 'inactive']);
    // Plan now allows one backup per 24 h: the next hourly slot is skipped.
    w.plan.frequencyLimit = 24;
    w.clock.advance(HOUR);
    await w.beat(agentId);
    const seen = w.events.distinct('backup.schedule.due').length;
    await w.scheduler.tick();
    expect((await work(w, seen)).sort()).toEqual(['inactive', 'plan-interval']);
  });

  it('schedules each user on their own frequency', async () => {
    const { w, agentId } = await world();
    const other = await w.connectAgent(['erp'], OTHER_USER, 'other-inst');
    w.clock.advance(GRACE);
    await w.beat(agentId);
    await w.beat(other, [], OTHER_USER);
    await w.settings.update(OTHER_USER, { frequency: 168 });
    await w.scheduler.tick();
    const slots = Object.fromEntries(
      w.events.of('backup.schedule.due').map((e) => [e.data.userId, e.data.slot]),
    );
    expect(slots[USER]).toBe(scheduleSlot(w.now(), 24).slot);
    expect(slots[OTHER_USER]).toBe(scheduleSlot(w.now(), 168).slot);
  });
});
