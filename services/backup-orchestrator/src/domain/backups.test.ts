import { OTHER_USER, USER, testWorld, commandReport } from '../test-world';

async function setup(plan = {}) {
  const w = testWorld({ plan });
  const agentId = await w.connectAgent(['shop']);
  return { w, agentId };
}

/** A backup the agent has acknowledged (in progress). */
async function running(plan = {}) {
  const { w, agentId } = await setup(plan);
  const b = await w.backups.trigger(USER, 'shop');
  await w.backups.delivery({ ...commandReport(agentId, b), delivered: true });
  return { w, agentId, b };
}

describe('triggering a manual backup', () => {
  it('creates a pending manual backup, announces it and commands the agent', async () => {
    const { w, agentId } = await setup();
    const b = await w.backups.trigger(USER, 'shop');
    expect(b).toMatchObject({ status: 'pending', type: 'manual', databaseName: 'shop', agentId, size: 0 });
    expect(b.id).toMatch(/^[0-9a-f]{24}$/);
    expect(w.events.of('backup.backup.created')).toEqual([
      {
        subject: 'backup.backup.created',
        id: b.id,
        data: { userId: USER, backupId: b.id, databaseName: 'shop', agentId, type: 'manual' },
      },
    ]);
    const [cmd] = w.events.of('agent.command.requested');
    expect(cmd).toEqual({
      subject: 'agent.command.requested',
      id: b.commandId,
      data: {
        commandId: b.commandId,
        userId: USER,
        agentId,
        kind: 'backup',
        jobId: b.id,
        databaseName: 'shop',
      },
    });
  });

  it('refuses an unknown database with NOT_FOUND', async () => {
    const { w } = await setup();
    await expect(w.backups.trigger(USER, 'nope')).rejects.toMatchObject({
      kind: 'NOT_FOUND',
      message: 'Unknown database',
    });
  });

  it('refuses an inactive database with FORBIDDEN', async () => {
    const { w } = await setup({ dbLimit: 1 });
    await w.connectAgent(['shop', 'crm']);
    await expect(w.backups.trigger(USER, 'crm')).rejects.toMatchObject({
      kind: 'FORBIDDEN',
      message: "This database is inactive because your plan's database limit is exceeded",
    });
  });

  it('needs a connected agent that reports the database and was heard from recently', async () => {
    const { w, agentId } = await setup();
    const refused = {
      kind: 'UNAVAILABLE',
      code: 'AGENT_UNAVAILABLE',
      message:
        "No connected agent reports database 'shop'. Check that the agent is running and configured for this database.",
    };
    w.clock.advance(61_000); // heartbeat overdue: 'inactive'
    await expect(w.backups.trigger(USER, 'shop')).rejects.toMatchObject(refused);
    await w.agents.heartbeat({ userId: USER, agentId, runningJobs: [], databases: [] });
    await w.agents.disconnected(USER, agentId);
    await expect(w.backups.trigger(USER, 'shop')).rejects.toMatchObject(refused);
    expect(w.stores.backups.rows.size).toBe(0);
  });

  it('keeps the plan interval, with the time the next backup is available', async () => {
    const { w, agentId } = await setup({ frequencyLimit: 24 });
    const first = await w.backups.trigger(USER, 'shop');
    w.clock.advance(3 * 3_600_000);
    const err = await w.backups.trigger(USER, 'shop').catch((e: unknown) => e);
    expect(err).toMatchObject({
      kind: 'LIMIT_REACHED',
      code: 'BACKUP_RATE_LIMITED',
      message: 'Backup limit reached for your plan. Your plan allows one backup every 24 hours.',
      details: { nextBackupAvailable: new Date(first.createdAt.getTime() + 24 * 3_600_000).toISOString() },
    });
    w.clock.advance(21 * 3_600_000);
    await w.beat(agentId);
    await expect(w.backups.trigger(USER, 'shop')).resolves.toMatchObject({ status: 'pending' });
  });

  it('does not count a failed backup against the interval', async () => {
    const { w, agentId } = await setup();
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({
      ...commandReport(agentId, b),
      delivered: false,
      error: 'ack timeout',
    });
    await expect(w.backups.trigger(USER, 'shop')).resolves.toMatchObject({ status: 'pending' });
  });

  it('lets only one of two simultaneous triggers through', async () => {
    const { w } = await setup();
    const results = await Promise.allSettled([
      w.backups.trigger(USER, 'shop'),
      w.backups.trigger(USER, 'shop'),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({
      reason: { code: 'BACKUP_RATE_LIMITED' },
    });
    expect(w.stores.backups.rows.size).toBe(1);
    expect(w.events.of('agent.command.requested')).toHaveLength(1);
  });

  it('fails the backup and says so when the command cannot be published', async () => {
    const { w } = await setup();
    w.events.failing.add('agent.command.requested');
    await expect(w.backups.trigger(USER, 'shop')).rejects.toMatchObject({ kind: 'UNAVAILABLE' });
    const [b] = [...w.stores.backups.rows.values()];
    expect(b).toMatchObject({ status: 'failed', error: 'The backup command could not be sent to the agent' });
  });
});

describe('the agent acknowledging a backup command', () => {
  it('starts the backup once, however often the ack is reported', async () => {
    const { w, agentId } = await setup();
    const b = await w.backups.trigger(USER, 'shop');
    const ack = { ...commandReport(agentId, b), delivered: true };
    await w.backups.delivery(ack);
    await w.backups.delivery(ack);
    expect(w.stores.backups.rows.get(b.id)).toMatchObject({ status: 'in-progress', startedAt: w.now() });
    expect(w.events.of('backup.backup.started')).toHaveLength(1);
  });

  it("fails it as 'Agent unreachable' when the command was not delivered", async () => {
    const { w, agentId } = await setup();
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({
      ...commandReport(agentId, b),
      delivered: false,
      error: 'ack timeout',
    });
    expect(w.stores.backups.rows.get(b.id)).toMatchObject({
      status: 'failed',
      error: 'Agent unreachable: ack timeout',
    });
    expect(w.events.of('backup.backup.failed')[0]!.data).toMatchObject({
      backupId: b.id,
      error: 'Agent unreachable: ack timeout',
    });
  });

  it('keeps the reason alone when the agent answered and refused the command', async () => {
    const { w, agentId } = await setup();
    const b = await w.backups.trigger(USER, 'shop');
    const reason = 'Refusing to back up "shop": restores and backups are turned off on this host';
    await w.backups.delivery({
      ...commandReport(agentId, b),
      delivered: false,
      refused: true,
      error: reason,
    });
    expect(w.stores.backups.rows.get(b.id)).toMatchObject({ status: 'failed', error: reason });
  });

  it('ignores a late "not delivered" once the job runs, and reports for another command', async () => {
    const { w, agentId, b } = await running();
    await w.backups.delivery({
      ...commandReport(agentId, b),
      delivered: false,
      error: 'late',
    });
    expect(w.stores.backups.rows.get(b.id)!.status).toBe('in-progress');
    const other = await setup();
    const b2 = await other.w.backups.trigger(USER, 'shop');
    await other.w.backups.delivery({
      userId: USER,
      agentId: other.agentId,
      commandId: 'someone-else',
      jobId: b2.id,
      delivered: true,
    });
    expect(other.w.stores.backups.rows.get(b2.id)!.status).toBe('pending');
  });

  it("answers NOT_FOUND for another user's backup", async () => {
    const { w, agentId, b } = await running();
    await expect(
      w.backups.delivery({
        userId: OTHER_USER,
        agentId,
        commandId: b.commandId,
        jobId: b.id,
        delivered: true,
      }),
    ).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });
});

describe('uploading and completing', () => {
  it('grants the upload with the plan storage limit to the agent that runs the backup', async () => {
    const { w, agentId, b } = await running({ storageLimit: 5_000 });
    await expect(w.backups.beginUpload({ userId: USER, agentId, backupId: b.id })).resolves.toEqual({
      backupId: b.id,
      storageLimit: 5_000,
      databaseName: 'shop',
      blob: { userId: USER, blobId: b.id },
      lockedUntil: null,
    });
    await expect(
      w.backups.beginUpload({ userId: USER, agentId: 'f'.repeat(24), backupId: b.id }),
    ).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
  });

  it('treats an upload before the ack report as proof of delivery', async () => {
    const { w, agentId } = await setup();
    const b = await w.backups.trigger(USER, 'shop');
    await w.backups.beginUpload({ userId: USER, agentId, backupId: b.id });
    expect(w.stores.backups.rows.get(b.id)!.status).toBe('in-progress');
    expect(w.events.of('backup.backup.started')).toHaveLength(1);
  });

  it('grants the limit the job recorded when it was created: the upload reads no plan', async () => {
    const { w, agentId, b } = await running({ storageLimit: 5_000 });
    const reads = w.plans.calls;
    const grant = await w.backups.beginUpload({ userId: USER, agentId, backupId: b.id });
    expect(grant.storageLimit).toBe(5_000);
    expect(w.plans.calls).toBe(reads);
  });

  it('reads the plan for a backup recorded before jobs kept the limit', async () => {
    const { w, agentId, b } = await running({ storageLimit: 5_000 });
    w.stores.backups.rows.get(b.id)!.storageLimit = undefined;
    const reads = w.plans.calls;
    const grant = await w.backups.beginUpload({ userId: USER, agentId, backupId: b.id });
    expect(grant.storageLimit).toBe(5_000);
    expect(w.plans.calls).toBe(reads + 1);
  });

  it("completes with the size and fingerprint of storage's answer, and a repeated report changes nothing", async () => {
    const { w, agentId, b } = await running();
    w.clock.advance(5_000);
    const done = await w.backups.complete({
      userId: USER,
      agentId,
      backupId: b.id,
      size: 4096,
      keyFingerprint: 'fp-1',
    });
    expect(done).toMatchObject({
      status: 'completed',
      size: 4096,
      keyFingerprint: 'fp-1',
      completedAt: w.now(),
    });
    await w.backups.complete({ userId: USER, agentId, backupId: b.id, size: 1, keyFingerprint: 'x' });
    expect(w.stores.backups.rows.get(b.id)).toMatchObject({ size: 4096, keyFingerprint: 'fp-1' });
    const completed = w.events.of('backup.backup.completed');
    expect(completed.map((e) => e.id)).toEqual([`${b.id}:completed`, `${b.id}:completed`]);
    expect(w.events.distinct('backup.backup.completed')).toHaveLength(1);
    expect(completed[0]!.data.size).toBe(4096);
  });

  it('completes even when NATS cannot take the event, and the event goes out later, once', async () => {
    const { w, agentId, b } = await running();
    w.events.failing.add('backup.backup.completed');
    const done = await w.backups.complete({
      userId: USER,
      agentId,
      backupId: b.id,
      size: 1,
      keyFingerprint: 'fp',
    });
    expect(done.status).toBe('completed');
    expect(w.events.of('backup.backup.completed')).toEqual([]);
    // Still down at the watchdog's next look: nothing is lost, the mark stays.
    await expect(w.backups.lifecycle.publishPendingOutcomes()).resolves.toBe(0);
    w.events.failing.delete('backup.backup.completed');
    await expect(w.backups.lifecycle.publishPendingOutcomes()).resolves.toBe(1);
    await expect(w.backups.lifecycle.publishPendingOutcomes()).resolves.toBe(0);
    expect(w.events.of('backup.backup.completed').map((e) => e.id)).toEqual([`${b.id}:completed`]);
    expect(w.stores.backups.rows.get(b.id)?.outcomePending).toBe(false);
  });

  it("grants the browser's download of a completed backup of the caller's only", async () => {
    const { w, agentId, b } = await running();
    await expect(w.backups.beginDownload(USER, b.id)).rejects.toMatchObject({
      kind: 'CONFLICT',
      message: 'Only completed backups can be downloaded',
    });
    await w.backups.complete({ userId: USER, agentId, backupId: b.id, size: 10, keyFingerprint: 'fp' });
    await expect(w.backups.beginDownload(OTHER_USER, b.id)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    await expect(w.backups.beginDownload(USER, b.id)).resolves.toEqual({
      backupId: b.id,
      databaseName: 'shop',
      size: 10,
      blob: { userId: USER, blobId: b.id },
      createdAt: b.createdAt.toISOString(),
    });
  });

  it('keeps the agent error, bounded to 2,000 characters', async () => {
    const { w, agentId, b } = await running();
    await w.backups.fail({ userId: USER, agentId, backupId: b.id, error: 'mongodump: ' + 'x'.repeat(5000) });
    const rec = w.stores.backups.rows.get(b.id)!;
    expect(rec.status).toBe('failed');
    expect(rec.error).toHaveLength(2000);
    expect(rec.error!.startsWith('mongodump: ')).toBe(true);
  });
});

describe('what the outcome events tell the audit log', () => {
  it('a completion carries the size and how long the agent ran it', async () => {
    const { w, agentId, b } = await running();
    w.clock.advance(90_000);
    await w.backups.complete({ userId: USER, agentId, backupId: b.id, size: 2048, keyFingerprint: 'fp' });
    expect(w.events.of('backup.backup.completed').map((e) => e.data)).toEqual([
      expect.objectContaining({ backupId: b.id, size: 2048, durationMs: 90_000 }),
    ]);
  });

  it('a failure carries the error and the time until it failed', async () => {
    const { w, agentId, b } = await running();
    w.clock.advance(5_000);
    await w.backups.fail({ userId: USER, agentId, backupId: b.id, error: 'disk full' });
    expect(w.events.of('backup.backup.failed').map((e) => e.data)).toEqual([
      expect.objectContaining({ error: 'disk full', durationMs: 5_000 }),
    ]);
  });
});

describe('late reports cannot move a finished backup', () => {
  it('a completion after a failure is refused and its upload removed', async () => {
    const { w, agentId, b } = await running();
    await w.backups.fail({ userId: USER, agentId, backupId: b.id, error: 'disk full' });
    await expect(
      w.backups.complete({ userId: USER, agentId, backupId: b.id, size: 10, keyFingerprint: 'fp' }),
    ).rejects.toMatchObject({ kind: 'CONFLICT', message: 'Backup is not in progress' });
    expect(w.stores.backups.rows.get(b.id)).toMatchObject({ status: 'failed', error: 'disk full' });
    // Once when it failed, once more for the late upload.
    expect(w.blobs.deleted).toEqual([b.id, b.id]);
    expect(w.events.of('backup.backup.completed')).toEqual([]);
  });

  it('a failure removes an upload storage already committed (the orchestrator was down when it finished)', async () => {
    const { w, agentId, b } = await running();
    await w.backups.fail({
      userId: USER,
      agentId,
      backupId: b.id,
      error: 'A Coffer service is not answering',
    });
    expect(w.blobs.deleted).toEqual([b.id]);
  });

  it('a failure after completion is refused', async () => {
    const { w, agentId, b } = await running();
    await w.backups.complete({ userId: USER, agentId, backupId: b.id, size: 10, keyFingerprint: 'fp' });
    await expect(
      w.backups.fail({ userId: USER, agentId, backupId: b.id, error: 'late' }),
    ).rejects.toMatchObject({
      kind: 'CONFLICT',
    });
    expect(w.stores.backups.rows.get(b.id)!.status).toBe('completed');
    expect(w.events.of('backup.backup.failed')).toEqual([]);
  });

  it('a second failure report is accepted without a second failure', async () => {
    const { w, agentId, b } = await running();
    await w.backups.fail({ userId: USER, agentId, backupId: b.id, error: 'first' });
    await w.backups.fail({ userId: USER, agentId, backupId: b.id, error: 'second' });
    expect(w.stores.backups.rows.get(b.id)!.error).toBe('first');
    expect(w.events.distinct('backup.backup.failed')).toHaveLength(1);
  });
});

describe('deleting a backup', () => {
  async function completed() {
    const r = await running();
    await r.w.backups.complete({
      userId: USER,
      agentId: r.agentId,
      backupId: r.b.id,
      size: 10,
      keyFingerprint: 'fp',
    });
    return r;
  }

  it('removes the blob, then the record, and announces a manual deletion', async () => {
    const { w, b } = await completed();
    const taken = w.stores.backups.rows.get(b.id)!.completedAt!;
    await w.backups.remove(USER, b.id);
    expect(w.blobs.deleted).toEqual([b.id]);
    expect(w.stores.backups.rows.has(b.id)).toBe(false);
    expect(w.events.of('backup.backup.deleted')).toEqual([
      expect.objectContaining({
        id: `${b.id}:deleted`,
        data: expect.objectContaining({
          backupId: b.id,
          type: 'manual',
          size: 10,
          backupTimestamp: taken.toISOString(),
        }),
      }),
    ]);
  });

  it('refuses while the backup runs', async () => {
    const { w, b } = await running();
    await expect(w.backups.remove(USER, b.id)).rejects.toMatchObject({
      kind: 'CONFLICT',
      message: 'This backup is still running. It can be deleted once it has finished.',
    });
  });

  it("answers NOT_FOUND for another user's backup", async () => {
    const { w, b } = await completed();
    await expect(w.backups.remove(OTHER_USER, b.id)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    await expect(w.backups.get(OTHER_USER, b.id)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });

  it('gives the backup back when storage does not answer', async () => {
    const { w, b } = await completed();
    w.blobs.fail = new Error('storage unavailable');
    await expect(w.backups.remove(USER, b.id)).rejects.toThrow('storage unavailable');
    expect(w.stores.backups.rows.get(b.id)).toMatchObject({ status: 'completed', deleteReason: null });
    expect(w.events.of('backup.backup.deleted')).toEqual([]);
  });

  it('refuses while a restore reads the backup', async () => {
    const { w, b } = await completed();
    await w.restores.request({ userId: USER, backupId: b.id, databaseName: 'shop' });
    await expect(w.backups.remove(USER, b.id)).rejects.toMatchObject({ kind: 'CONFLICT' });
  });
});

describe('listing and stats', () => {
  it('lists newest first and counts every user in the stats', async () => {
    const { w, agentId } = await setup({ frequencyLimit: 1 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const b = await w.backups.trigger(USER, 'shop');
      ids.push(b.id);
      await w.backups.delivery({
        ...commandReport(agentId, b),
        delivered: true,
      });
      await w.backups.complete({
        userId: USER,
        agentId,
        backupId: b.id,
        size: 100 * (i + 1),
        keyFingerprint: 'fp',
      });
      w.clock.advance(3_600_000);
      await w.beat(agentId);
    }
    expect((await w.backups.list(USER)).map((b) => b.id)).toEqual(ids.reverse());
    expect(await w.backups.list(OTHER_USER)).toEqual([]);
    await expect(w.backups.stats()).resolves.toEqual({ totalCount: 3, totalSize: 600 });
  });
});
