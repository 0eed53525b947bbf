import { OTHER_USER, USER, testWorld } from '../test-world';
import { accountCleanup } from './account-cleanup';

describe('a deleted account', () => {
  it("removes the user's agents, databases, settings, restores, backups and blobs — and nobody else's", async () => {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    await w.connectAgent(['erp'], OTHER_USER, 'other');
    await w.settings.update(USER, { retention: 168 });
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({ userId: USER, agentId, commandId: b.commandId, jobId: b.id, delivered: true });
    w.blobs.stored.set(b.id, { size: 1, keyFingerprint: 'fp' });
    await w.backups.complete({ userId: USER, agentId, backupId: b.id, size: 1, keyFingerprint: 'fp' });
    await w.restores.request({ userId: USER, backupId: b.id, databaseName: 'shop' });
    const theirs = await w.backups.trigger(OTHER_USER, 'erp');

    const cleanup = accountCleanup({ stores: w.stores, blobs: w.blobs, log: { info() {} } });
    await cleanup.userDeleted(USER);
    await cleanup.userDeleted(USER); // redelivered: nothing left to do, no error

    expect(await w.agents.list(USER)).toEqual([]);
    expect(await w.stores.databases.list(USER)).toEqual([]);
    expect(await w.stores.settings.get(USER)).toBeNull();
    expect(await w.restores.list(USER)).toEqual([]);
    expect(await w.backups.list(USER)).toEqual([]);
    expect(w.blobs.deleted).toEqual([b.id]);
    expect(w.stores.backups.rows.has(theirs.id)).toBe(true);
    expect(await w.agents.list(OTHER_USER)).toHaveLength(1);
  });

  it('keeps the records when storage fails, so the redelivered event can finish', async () => {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.fail({ userId: USER, agentId, backupId: b.id, error: 'x' });
    w.blobs.fail = new Error('storage down');
    const cleanup = accountCleanup({ stores: w.stores, blobs: w.blobs, log: { info() {} } });
    await expect(cleanup.userDeleted(USER)).rejects.toThrow('storage down');
    expect(w.stores.backups.rows.has(b.id)).toBe(true);
    w.blobs.fail = null;
    await cleanup.userDeleted(USER);
    expect(w.stores.backups.rows.has(b.id)).toBe(false);
  });
});
