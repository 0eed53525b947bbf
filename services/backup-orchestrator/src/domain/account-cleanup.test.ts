import { OTHER_USER, USER, testWorld, commandReport } from '../test-world';
import { accountCleanup } from './account-cleanup';

const quiet = { info() {} };

describe('a deleted account', () => {
  it("removes the user's agents, databases, settings, restores and backups — and nobody else's", async () => {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    await w.connectAgent(['erp'], OTHER_USER, 'other');
    await w.settings.update(USER, { retention: 168 });
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({ ...commandReport(agentId, b), delivered: true });
    await w.backups.complete({ userId: USER, agentId, backupId: b.id, size: 1, keyFingerprint: 'fp' });
    await w.restores.request({ userId: USER, backupId: b.id, databaseName: 'shop' });
    const theirs = await w.backups.trigger(OTHER_USER, 'erp');

    const cleanup = accountCleanup({ stores: w.stores, log: quiet });
    await cleanup.userDeleted(USER);
    await cleanup.userDeleted(USER); // redelivered: nothing left to do, no error

    expect(await w.agents.list(USER)).toEqual([]);
    expect(await w.stores.databases.list(USER)).toEqual([]);
    expect(await w.stores.settings.get(USER)).toBeNull();
    expect(await w.restores.list(USER)).toEqual([]);
    expect(await w.backups.list(USER)).toEqual([]);
    // Blobs are storage's to remove (its own consumer of the event): no call from here.
    expect(w.blobs.deleted).toEqual([]);
    expect(w.stores.backups.rows.has(theirs.id)).toBe(true);
    expect(await w.agents.list(OTHER_USER)).toHaveLength(1);
  });

  it('drops a running job: its late report finds nothing and nothing comes back', async () => {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    const running = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({
      ...commandReport(agentId, running),
      delivered: true,
    });

    await accountCleanup({ stores: w.stores, log: quiet }).userDeleted(USER);

    expect(w.stores.backups.rows.has(running.id)).toBe(false);
    await expect(
      w.backups.complete({ userId: USER, agentId, backupId: running.id, size: 1, keyFingerprint: 'fp' }),
    ).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    expect(await w.backups.list(USER)).toEqual([]);
  });

  it('finishes on redelivery what a crash between two steps left', async () => {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.fail({ userId: USER, agentId, backupId: b.id, error: 'x' });
    const removeRestores = w.stores.restores.removeByUser;
    w.stores.restores.removeByUser = async () => {
      throw new Error('connection reset');
    };
    const cleanup = accountCleanup({ stores: w.stores, log: quiet });
    await expect(cleanup.userDeleted(USER)).rejects.toThrow('connection reset');
    // The steps before the crash are done, the ones after it are not.
    expect(await w.agents.list(USER)).toEqual([]);
    expect(w.stores.backups.rows.has(b.id)).toBe(true);
    w.stores.restores.removeByUser = removeRestores;
    await cleanup.userDeleted(USER);
    expect(w.stores.backups.rows.has(b.id)).toBe(false);
  });
});
