import { OTHER_USER, USER, testWorld, commandReport } from '../test-world';
import { toBackup } from '../views';

/** A world with one completed backup of 'shop'. */
async function withBackup(plan = {}) {
  const w = testWorld({ plan });
  const agentId = await w.connectAgent(['shop']);
  const b = await w.backups.trigger(USER, 'shop');
  await w.backups.delivery({ ...commandReport(agentId, b), delivered: true });
  await w.backups.complete({ userId: USER, agentId, backupId: b.id, size: 2048, keyFingerprint: 'fp' });
  return { w, agentId, backupId: b.id };
}

async function requested() {
  const ctx = await withBackup();
  const r = await ctx.w.restores.request({ userId: USER, backupId: ctx.backupId, databaseName: 'shop' });
  return { ...ctx, r };
}

describe('restoring anywhere', () => {
  /** A backup of 'shop' (whose agent also reports 'copy'), with its collections recorded. */
  async function anywhere() {
    const w = testWorld({ plan: { dbLimit: 5 } });
    const agentId = await w.connectAgent(['shop', 'copy']);
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({ ...commandReport(agentId, b), delivered: true });
    await w.backups.complete({ userId: USER, agentId, backupId: b.id, size: 2048, keyFingerprint: 'fp' });
    const collections = [
      { name: 'customers', documents: 40 },
      { name: 'events', documents: 1000 },
    ];
    await w.backups.recordContents({ userId: USER, agentId, backupId: b.id, collections });
    return { w, agentId, backupId: b.id, collections };
  }

  it('records what the backup holds once, from its own agent only', async () => {
    const { w, agentId, backupId, collections } = await anywhere();
    expect((await w.stores.backups.get(backupId))!.collections).toEqual(collections);
    await w.backups.recordContents({ userId: USER, agentId, backupId, collections: [] });
    expect((await w.stores.backups.get(backupId))!.collections).toEqual(collections);
    const other = await w.connectAgent(['shop'], USER, 'inst-2');
    await expect(
      w.backups.recordContents({ userId: USER, agentId: other, backupId, collections: [] }),
    ).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });

  it("takes what the backup holds from its summary (today's agents send no contents report)", async () => {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({ ...commandReport(agentId, b), delivered: true });
    const digest = 'a'.repeat(64);
    await w.verifications.recordSummary({
      userId: USER,
      agentId,
      backupId: b.id,
      collections: [{ name: 'orders', documents: 2, digest, indexes: ['{"key":{"_id":1},"name":"_id_"}'] }],
    });
    await w.backups.complete({ userId: USER, agentId, backupId: b.id, size: 2048, keyFingerprint: 'fp' });
    expect(toBackup((await w.stores.backups.get(b.id))!).collections).toEqual([
      { name: 'orders', documents: 2 },
    ]);
    await expect(
      w.restores.request({ userId: USER, backupId: b.id, databaseName: 'shop', collections: ['events'] }),
    ).rejects.toMatchObject({ kind: 'BAD_INPUT', message: "This backup holds no collection 'events'" });
    await expect(
      w.restores.request({ userId: USER, backupId: b.id, databaseName: 'shop', collections: ['orders'] }),
    ).resolves.toMatchObject({ collections: ['orders'] });
  });

  it('restores into another label of the same agent, naming the source label to the agent', async () => {
    const { w, agentId, backupId } = await anywhere();
    const r = await w.restores.request({
      userId: USER,
      backupId,
      databaseName: 'shop',
      targetDatabaseName: 'copy',
      collections: ['events'],
    });
    expect(r).toMatchObject({
      databaseName: 'copy',
      sourceDatabaseName: 'shop',
      agentId,
      sourceAgentId: agentId,
      agentName: 'web-1',
      sourceAgentName: 'web-1',
      collections: ['events'],
    });
    expect(w.events.of('agent.command.requested').at(-1)!.data).toMatchObject({
      kind: 'restore',
      databaseName: 'copy',
      sourceLabel: 'shop',
      collections: ['events'],
      keyFingerprint: 'fp',
    });
    expect(w.events.of('restore.restore.requested').at(-1)!.data).toMatchObject({
      databaseName: 'copy',
      sourceDatabaseName: 'shop',
      agentName: 'web-1',
      sourceAgentName: 'web-1',
    });
  });

  it('restores on the agent the user chose, which must be theirs, active, and report the target', async () => {
    const { w, agentId, backupId } = await anywhere();
    const dr = await w.connectAgent(['dr'], USER, 'dr-host', 'fp', 'dr-host');
    const r = await w.restores.request({
      userId: USER,
      backupId,
      databaseName: 'shop',
      targetDatabaseName: 'dr',
      targetAgentId: dr,
    });
    expect(r).toMatchObject({
      agentId: dr,
      agentName: 'dr-host',
      sourceAgentId: agentId,
      databaseName: 'dr',
    });

    /** A restore of `shop` into the database `copy` of `targetAgentId`. */
    const intoCopy = (targetAgentId: string) =>
      w.restores.request({
        userId: USER,
        backupId,
        databaseName: 'shop',
        targetDatabaseName: 'copy',
        targetAgentId,
      });
    const theirs = await w.connectAgent(['dr'], OTHER_USER, 'theirs');
    await expect(intoCopy(theirs)).rejects.toMatchObject({ kind: 'NOT_FOUND', message: 'Agent not found' });
    await expect(intoCopy(dr)).rejects.toMatchObject({
      kind: 'UNAVAILABLE',
      message: expect.stringContaining("does not report database 'copy'"),
    });
    await expect(
      w.restores.request({ userId: USER, backupId, databaseName: 'shop', targetDatabaseName: 'nope' }),
    ).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });

  it('refuses a collection the backup does not hold', async () => {
    const { w, backupId } = await anywhere();
    await expect(
      w.restores.request({
        userId: USER,
        backupId,
        databaseName: 'shop',
        collections: ['customers', 'gone'],
      }),
    ).rejects.toMatchObject({ kind: 'BAD_INPUT', message: "This backup holds no collection 'gone'" });
  });

  it('refuses an agent too old to honour the choice (it reports no key fingerprint)', async () => {
    const { w, backupId } = await anywhere();
    const old = await w.connectAgent(['old'], USER, 'old-host', '', 'old-host');
    await expect(
      w.restores.request({
        userId: USER,
        backupId,
        databaseName: 'shop',
        targetDatabaseName: 'old',
        targetAgentId: old,
      }),
    ).rejects.toMatchObject({
      kind: 'CONFLICT',
      message: expect.stringContaining("The agent 'old-host' is too old"),
    });
  });
});

describe('requesting a restore', () => {
  it('creates a pending restore, announces it and commands the agent', async () => {
    const { w, agentId, backupId, r } = await requested();
    expect(r).toMatchObject({ status: 'pending', backupId, databaseName: 'shop', agentId });
    // The history names the backup by its own timestamp, even after retention deletes it.
    const backup = await w.stores.backups.get(backupId);
    expect(r.backupTimestamp).toEqual(backup!.completedAt);
    expect(w.events.of('restore.restore.requested')[0]).toMatchObject({
      id: `${r.id}:requested`,
      data: { userId: USER, restoreId: r.id, backupId, databaseName: 'shop', agentId },
    });
    expect(w.events.of('agent.command.requested').at(-1)!.data).toEqual({
      commandId: r.commandId,
      userId: USER,
      agentId,
      kind: 'restore',
      jobId: r.id,
      databaseName: 'shop',
      backupId,
      confirm: [],
      keyFingerprint: 'fp',
    });
  });

  it("carries the user's confirmation to the agent with the command, and keeps it on the record", async () => {
    const { w, backupId } = await withBackup();
    const r = await w.restores.request({
      userId: USER,
      backupId,
      databaseName: 'shop',
      confirm: ['empty-backup'],
    });
    expect((await w.stores.restores.get(r.id))!.confirm).toEqual(['empty-backup']);
    expect(w.events.of('agent.command.requested').at(-1)!.data).toMatchObject({
      jobId: r.id,
      backupId,
      confirm: ['empty-backup'],
    });
  });

  it('only restores completed backups of the caller', async () => {
    const { w, agentId } = await withBackup({ frequencyLimit: 1 });
    w.clock.advance(3_600_000);
    await w.beat(agentId);
    const pending = await w.backups.trigger(USER, 'shop');
    await expect(
      w.restores.request({ userId: USER, backupId: pending.id, databaseName: 'shop' }),
    ).rejects.toMatchObject({
      kind: 'CONFLICT',
      message: 'Only completed backups can be restored',
    });
    await expect(
      w.restores.request({ userId: OTHER_USER, backupId: pending.id, databaseName: 'shop' }),
    ).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });

  it('restores only into the database the backup was taken of', async () => {
    const { w, backupId } = await withBackup();
    await expect(w.restores.request({ userId: USER, backupId, databaseName: 'other' })).rejects.toMatchObject(
      {
        kind: 'BAD_INPUT',
        message: "This backup can only be restored into 'shop'",
      },
    );
  });

  it('refuses a second restore of the same database while one runs', async () => {
    const { w, backupId } = await requested();
    await expect(w.restores.request({ userId: USER, backupId, databaseName: 'shop' })).rejects.toMatchObject({
      kind: 'CONFLICT',
      message: "A restore of 'shop' is already in progress",
    });
  });

  it('needs a connected agent', async () => {
    const { w, agentId, backupId } = await withBackup();
    await w.agents.disconnected(USER, agentId);
    await expect(w.restores.request({ userId: USER, backupId, databaseName: 'shop' })).rejects.toMatchObject({
      kind: 'UNAVAILABLE',
    });
  });

  it('refuses an inactive database', async () => {
    const { w, backupId } = await withBackup();
    const [db] = await w.databases.list(USER);
    await w.databases.setActive(USER, db!.id, false);
    await expect(w.restores.request({ userId: USER, backupId, databaseName: 'shop' })).rejects.toMatchObject({
      kind: 'FORBIDDEN',
    });
  });
});

describe('running a restore', () => {
  it('moves to in-progress on the ack (RESTORE_INITIATED) and grants the download', async () => {
    const { w, agentId, backupId, r } = await requested();
    await w.restores.delivery({
      ...commandReport(agentId, r),
      delivered: true,
    });
    expect(w.events.of('restore.restore.initiated')).toHaveLength(1);
    await expect(w.restores.beginDownload({ userId: USER, agentId, restoreId: r.id })).resolves.toEqual({
      backupId,
      databaseName: 'shop',
      size: 2048,
      blob: { userId: USER, blobId: backupId },
      createdAt: expect.any(String),
    });
    await w.restores.started({ userId: USER, agentId, restoreId: r.id });
    expect(w.events.of('restore.restore.initiated')).toHaveLength(1);
  });

  it("fails with 'Agent unreachable' when the command was not delivered", async () => {
    const { w, agentId, r } = await requested();
    await w.restores.delivery({
      ...commandReport(agentId, r),
      delivered: false,
      error: 'timeout',
    });
    expect(w.stores.restores.rows.get(r.id)).toMatchObject({
      status: 'failed',
      error: 'Agent unreachable: timeout',
    });
  });

  it('completes cleanly when no document failed', async () => {
    const { w, agentId, r } = await requested();
    await w.restores.started({ userId: USER, agentId, restoreId: r.id });
    w.clock.advance(30_000);
    const done = await w.restores.complete({
      userId: USER,
      agentId,
      restoreId: r.id,
      documentsRestored: 500,
      documentsFailed: 0,
    });
    expect(done).toMatchObject({
      status: 'completed',
      documentsRestored: 500,
      documentsFailed: 0,
      error: null,
    });
    // The audit log names the restored backup by its time and says how long the restore ran.
    expect(w.events.of('restore.restore.completed')[0]!.data).toMatchObject({
      documentsRestored: 500,
      documentsFailed: 0,
      durationMs: 30_000,
      backupTimestamp: r.backupTimestamp!.toISOString(),
    });
  });

  it('counts a restore with failed documents as failed', async () => {
    const { w, agentId, r } = await requested();
    await w.restores.started({ userId: USER, agentId, restoreId: r.id });
    const done = await w.restores.complete({
      userId: USER,
      agentId,
      restoreId: r.id,
      documentsRestored: 497,
      documentsFailed: 3,
    });
    expect(done).toMatchObject({
      status: 'failed',
      error: '3 documents failed to restore',
      documentsFailed: 3,
    });
    expect(w.events.of('restore.restore.failed')[0]!.data.error).toBe('3 documents failed to restore');
    expect(w.events.of('restore.restore.completed')).toEqual([]);
  });

  it('refuses late reports on a finished restore', async () => {
    const { w, agentId, r } = await requested();
    await w.restores.fail({ userId: USER, agentId, restoreId: r.id, error: 'wrong key' });
    await expect(
      w.restores.complete({
        userId: USER,
        agentId,
        restoreId: r.id,
        documentsRestored: 1,
        documentsFailed: 0,
      }),
    ).rejects.toMatchObject({ kind: 'CONFLICT', message: 'Restore is not in progress' });
    await expect(w.restores.started({ userId: USER, agentId, restoreId: r.id })).rejects.toMatchObject({
      kind: 'CONFLICT',
    });
    expect(w.stores.restores.rows.get(r.id)).toMatchObject({ status: 'failed', error: 'wrong key' });
  });

  it("answers NOT_FOUND to another agent's reports", async () => {
    const { w, r } = await requested();
    await expect(
      w.restores.beginDownload({ userId: USER, agentId: 'f'.repeat(24), restoreId: r.id }),
    ).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });

  it('lists restores newest first', async () => {
    const { w, agentId, backupId, r } = await requested();
    await w.restores.fail({ userId: USER, agentId, restoreId: r.id, error: 'x' });
    w.clock.advance(1000);
    const r2 = await w.restores.request({ userId: USER, backupId, databaseName: 'shop' });
    expect((await w.restores.list(USER)).map((x) => x.id)).toEqual([r2.id, r.id]);
  });
});
