// The scheduler tick visits only what is due (jobs/due-visitor.ts): these pin which databases it
// reads, not only what it publishes, so a tick that went back to reading every database fails.
import { OTHER_USER, USER, testWorld } from '../test-world';
import { FIRST_BACKUP_GRACE_MINUTES, scheduleSlot } from '../domain/rules';

const HOUR = 3_600_000;
const GRACE = (FIRST_BACKUP_GRACE_MINUTES * HOUR) / 60;

/** Two accounts with one database each, past the first-backup grace, both agents active. */
async function twoAccounts() {
  const w = testWorld({ plan: { frequencyLimit: 1 } });
  w.clock.set('2025-06-02T09:45:00Z');
  const agents = {
    [USER]: await w.connectAgent(['shop'], USER, 'inst-a'),
    [OTHER_USER]: await w.connectAgent(['shop'], OTHER_USER, 'inst-b'),
  };
  w.clock.advance(GRACE);
  const beat = async () => {
    for (const [userId, agentId] of Object.entries(agents)) await w.beat(agentId, [], userId);
  };
  await beat();
  /** Which accounts' databases the next tick reads (their backups since the slot began). */
  const read = jest.spyOn(w.stores.backups, 'startedSince');
  const tick = async () => {
    read.mockClear();
    const published = await w.scheduler.tick();
    return { published, read: read.mock.calls.map(([userId]) => userId).sort() };
  };
  /** Hands the due slots published since `from` to the worker. */
  const work = async (from: number) => {
    const due = w.events.distinct('backup.schedule.due').slice(from);
    return Promise.all(due.map((e) => w.scheduler.due(e.data)));
  };
  const row = async (userId: string) => (await w.stores.databases.byName(userId, 'shop'))!;
  return { w, agents, beat, tick, work, row };
}

describe('the scheduler visits only what is due', () => {
  it('backs up a due database and does not read one whose slot is handled; a schedule change makes it due', async () => {
    const { w, beat, tick, work, row } = await twoAccounts();
    await expect(tick()).resolves.toEqual({ published: 2, read: [OTHER_USER, USER].sort() });
    await expect(work(0)).resolves.toEqual(['created', 'created']);
    // Handled: due again when the daily slot ends, not before.
    const { end } = scheduleSlot(w.now(), 24);
    expect(await row(USER)).toMatchObject({ dueAt: end });
    w.clock.advance(HOUR);
    await beat();
    await expect(tick()).resolves.toEqual({ published: 0, read: [] });

    // Hourly from now on for one account: only its database is due, and its hourly slot is taken.
    await w.settings.update(USER, { frequency: 1 });
    expect((await row(USER)).dueAt).toEqual(w.now());
    expect((await row(OTHER_USER)).dueAt).toEqual(end);
    const before = w.events.distinct('backup.schedule.due').length;
    await expect(tick()).resolves.toEqual({ published: 1, read: [USER] });
    expect(
      w.events
        .distinct('backup.schedule.due')
        .slice(before)
        .map((e) => e.data.userId),
    ).toEqual([USER]);
  });

  it("parks a database no connected agent reports, and its agent's return makes it due again", async () => {
    const { w, agents, tick, work, row } = await twoAccounts();
    await w.agents.disconnected(USER, agents[USER]);
    await expect(tick()).resolves.toEqual({ published: 1, read: [OTHER_USER] });
    expect(await row(USER)).toMatchObject({ dueAt: null, dueBucket: null });
    await work(0);
    await expect(tick()).resolves.toEqual({ published: 0, read: [] });
    // Reconnecting (a registration) wakes it; this slot has no backup yet, so it is published.
    await w.connectAgent(['shop'], USER, 'inst-a');
    await expect(tick()).resolves.toEqual({ published: 1, read: [USER] });
  });

  it('looks again at a database whose manual backup is running, and schedules the slot once it failed', async () => {
    const { w, agents, tick, work } = await twoAccounts();
    const manual = await w.backups.trigger(USER, 'shop');
    const first = await tick();
    expect(first.published).toBe(1); // the other account's
    await work(0);
    await expect(tick()).resolves.toMatchObject({ published: 0, read: [USER] });
    await w.backups.delivery({
      userId: USER,
      agentId: agents[USER],
      commandId: manual.commandId,
      jobId: manual.id,
      delivered: false,
    });
    await expect(tick()).resolves.toMatchObject({ published: 1, read: [USER] });
  });

  it('files databases saved before due times existed on its first tick (a restart)', async () => {
    const { w, tick, row } = await twoAccounts();
    for (const d of w.stores.databases.rows.values()) {
      delete d.dueAt;
      delete d.dueBucket;
    }
    await expect(tick()).resolves.toEqual({ published: 2, read: [OTHER_USER, USER].sort() });
    expect((await row(USER)).dueAt).toEqual(w.now());
  });
});
