import { LIMITS } from '@coffer/contracts';
import { ADMIN, OTHER_USER, USER, agentRegistration, testWorld } from '../test-world';
import { AGENT_RESET_MESSAGE, REGISTRATION_ABANDONED } from './agents';
import { noAgentMessage } from './dispatch';

const reg = (over: Parameters<typeof agentRegistration>[0] = {}) =>
  agentRegistration({ instanceId: 'inst-1', ...over });

describe('agents', () => {
  it('announces a new instance once; re-registering refreshes it quietly', async () => {
    const w = testWorld({ plan: { dbLimit: 1 } });
    const first = await w.agents.register(reg());
    expect(first.databases.map((d) => [d.name, d.isActive])).toEqual([['shop', true]]);
    const again = await w.agents.register(reg({ version: '1.1.0', databases: ['shop', 'crm'] }));
    expect(again.agent.id).toBe(first.agent.id);
    expect(again.agent.version).toBe('1.1.0');
    expect(again.databases.map((d) => [d.name, d.isActive])).toEqual([
      ['shop', true],
      ['crm', false],
    ]);
    expect(w.events.of('agent.agent.registered').map((e) => e.data)).toEqual([
      { userId: USER, agentId: first.agent.id, name: 'web-1', hostname: 'web-1.internal' },
    ]);
  });

  it('keeps databases no agent reports any more', async () => {
    const w = testWorld();
    await w.agents.register(reg({ databases: ['a', 'b'] }));
    await w.agents.register(reg({ databases: ['b'] }));
    expect((await w.databases.list(USER)).map((d) => d.name)).toEqual(['a', 'b']);
  });

  it('reports status: active, inactive when the heartbeat is overdue, offline after 5 minutes or a disconnect', async () => {
    const w = testWorld();
    const agentId = await w.connectAgent();
    const status = async () => (await w.agents.list(USER))[0]!.status;
    expect(await status()).toBe('active');
    w.clock.advance(90_000);
    expect(await status()).toBe('inactive');
    w.clock.advance(240_000);
    expect(await status()).toBe('offline');
    await w.beat(agentId);
    expect(await status()).toBe('active');
    await w.agents.disconnected(USER, agentId);
    expect(await status()).toBe('offline');
  });

  it('announces a disconnect once however often the gateway reports it', async () => {
    const w = testWorld();
    const agentId = await w.connectAgent();
    await w.agents.disconnected(USER, agentId);
    await w.agents.disconnected(USER, agentId);
    expect(w.events.of('agent.agent.disconnected')).toHaveLength(1);
    await expect(w.agents.disconnected(OTHER_USER, agentId)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });

  it('adds databases from heartbeats, and an empty list keeps the known ones', async () => {
    const w = testWorld({ plan: { dbLimit: 5 } });
    const agentId = await w.connectAgent(['shop']);
    await w.agents.heartbeat({ userId: USER, agentId, runningJobs: [], databases: ['shop', 'crm'] });
    await w.agents.heartbeat({ userId: USER, agentId, runningJobs: [], databases: [] });
    expect(w.stores.agents.rows.get(agentId)!.databases).toEqual(['shop', 'crm']);
    expect((await w.databases.list(USER)).map((d) => d.name)).toEqual(['shop', 'crm']);
  });

  it('sends restart and update commands; a reset also retires the agent until it returns as a new instance', async () => {
    const w = testWorld();
    const agentId = await w.connectAgent();
    await w.agents.manage(USER, agentId, 'restart');
    await w.agents.manage(USER, agentId, 'reset');
    expect(w.events.of('agent.command.requested').map((e) => e.data.kind)).toEqual(['restart', 'reset']);
    expect(await w.agents.list(USER)).toEqual([]);
    await expect(w.agents.manage(USER, agentId, 'update')).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    await expect(
      w.agents.heartbeat({ userId: USER, agentId, runningJobs: [], databases: [] }),
    ).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
    await w.agents.disconnected(USER, agentId); // its old socket closing: no mail about a replaced agent
    expect(w.events.of('agent.agent.disconnected')).toEqual([]);
    // The old identity no longer works: whoever still holds it must register as a new instance.
    await expect(w.connectAgent()).rejects.toMatchObject({ kind: 'CONFLICT', message: AGENT_RESET_MESSAGE });
    const back = await w.connectAgent(['shop'], USER, 'inst-2');
    expect((await w.agents.list(USER)).map((a) => a.id)).toEqual([back]);
    expect(w.events.of('agent.agent.registered')).toHaveLength(2);
  });

  describe('update reports', () => {
    const report = (agentId: string, over = {}) => ({
      userId: USER,
      agentId,
      status: 'updated' as const,
      fromVersion: '1.0.0',
      toVersion: '1.1.0',
      ...over,
    });

    it('announces an update once, however often the agent repeats the report', async () => {
      const w = testWorld();
      const agentId = await w.connectAgent();
      await w.agents.updateReported(report(agentId));
      w.clock.advance(3 * 3_600_000); // the ack was lost; the agent reports again after a reconnect
      await w.agents.updateReported(report(agentId));
      expect(w.events.distinct('agent.agent.updated').map((e) => e.data)).toEqual([
        {
          userId: USER,
          agentId,
          name: 'web-1',
          hostname: 'web-1.internal',
          fromVersion: '1.0.0',
          toVersion: '1.1.0',
        },
      ]);
      expect(w.events.of('agent.agent.update_failed')).toEqual([]);
    });

    it('announces a failure with its error; a repeat within the hour is the same report, a later one or another reason is new', async () => {
      const w = testWorld();
      const agentId = await w.connectAgent();
      const failed = report(agentId, { status: 'failed', toVersion: '1.0.0', error: 'permission denied' });
      await w.agents.updateReported(failed);
      w.clock.advance(60_000);
      await w.agents.updateReported(failed);
      expect(w.events.distinct('agent.agent.update_failed').map((e) => e.data)).toEqual([
        {
          userId: USER,
          agentId,
          name: 'web-1',
          hostname: 'web-1.internal',
          fromVersion: '1.0.0',
          error: 'permission denied',
        },
      ]);
      await w.agents.updateReported({ ...failed, error: 'the release 1.1.0 is refused: it is not signed' });
      expect(w.events.distinct('agent.agent.update_failed').map((e) => e.data.error)).toEqual([
        'permission denied',
        'the release 1.1.0 is refused: it is not signed',
      ]);
      w.clock.advance(3_600_000);
      await w.agents.updateReported(failed);
      expect(w.events.distinct('agent.agent.update_failed')).toHaveLength(3);
      expect(w.events.of('agent.agent.updated')).toEqual([]);
    });

    it('announces an agent that was already current, so the user who asked hears it (issue 21)', async () => {
      const w = testWorld();
      const agentId = await w.connectAgent();
      const current = report(agentId, { status: 'current', toVersion: '1.0.0' });
      await w.agents.updateReported(current);
      await w.agents.updateReported(current); // the ack was lost: the same report
      expect(w.events.distinct('agent.agent.up_to_date').map((e) => e.data)).toEqual([
        { userId: USER, agentId, name: 'web-1', hostname: 'web-1.internal', version: '1.0.0' },
      ]);
      expect(w.events.of('agent.agent.updated')).toEqual([]);
      expect(w.events.of('agent.agent.update_failed')).toEqual([]);
    });

    it('answers a Check for Updates that reached no agent as a failed update, once per command', async () => {
      const w = testWorld();
      const agentId = await w.connectAgent();
      await w.agents.updateNotDelivered(USER, agentId, 'cmd-1', 'the agent is not connected');
      await w.agents.updateNotDelivered(USER, agentId, 'cmd-1', 'the agent is not connected');
      await w.agents.updateNotDelivered(OTHER_USER, agentId, 'cmd-2', 'the agent is not connected');
      expect(w.events.distinct('agent.agent.update_failed').map((e) => e.data.error)).toEqual([
        'the agent did not receive the command (the agent is not connected); check for updates again once it is online',
      ]);
    });

    it("answers NOT_FOUND for another user's agent, an unknown one and a reset one", async () => {
      const w = testWorld();
      const agentId = await w.connectAgent();
      await expect(w.agents.updateReported(report(agentId, { userId: OTHER_USER }))).rejects.toMatchObject({
        kind: 'NOT_FOUND',
        message: 'Agent not found',
      });
      await expect(
        w.agents.updateReported(report('ffffffffffffffffffffffff', { status: 'failed', error: 'x' })),
      ).rejects.toMatchObject({ kind: 'NOT_FOUND' });
      await w.agents.manage(USER, agentId, 'reset');
      await expect(w.agents.updateReported(report(agentId))).rejects.toMatchObject({ kind: 'NOT_FOUND' });
      expect(w.events.of('agent.agent.updated')).toEqual([]);
      expect(w.events.of('agent.agent.update_failed')).toEqual([]);
    });
  });

  it("answers NOT_FOUND for another user's agent", async () => {
    const w = testWorld();
    const agentId = await w.connectAgent();
    await expect(w.agents.manage(OTHER_USER, agentId, 'restart')).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
    await expect(w.agents.remove(agentId, { userId: OTHER_USER })).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
    await w.agents.remove(agentId, { adminId: ADMIN });
    expect(await w.agents.list(USER)).toEqual([]);
    // The admin, as verified by the caller, is on the record of the removal.
    expect(w.events.of('agent.agent.removed').map((e) => e.data)).toMatchObject([
      { userId: USER, agentId, by: 'admin', actorId: ADMIN },
    ]);
  });

  it("removes the caller's agent (another user's answers NOT_FOUND); its backups stay", async () => {
    const w = testWorld();
    const agentId = await w.connectAgent();
    const backup = await w.backups.trigger(USER, 'shop');
    await expect(w.agents.remove(agentId, { userId: OTHER_USER })).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
    await w.agents.remove(agentId, { userId: USER });
    expect(await w.agents.list(USER)).toEqual([]);
    expect((await w.backups.list(USER)).map((b) => b.id)).toEqual([backup.id]);
    await expect(w.agents.remove(agentId, { userId: USER })).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    // Its socket closing afterwards finds no record (the gateway ignores that answer).
    await expect(w.agents.disconnected(USER, agentId)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });

  describe('an agent set up again on the same host (new instance id)', () => {
    it('replaces its old registrations that are not connected', async () => {
      const w = testWorld();
      const old = await w.connectAgent(['shop'], USER, 'inst-1');
      await w.agents.disconnected(USER, old);
      const fresh = await w.connectAgent(['shop'], USER, 'inst-2');
      expect((await w.agents.list(USER)).map((a) => a.id)).toEqual([fresh]);
      expect(w.events.of('agent.agent.registered')).toHaveLength(2);
      // The old identity, should a copy of it come back, registers as a new instance.
      await expect(w.connectAgent(['shop'], USER, 'inst-1')).rejects.toMatchObject({ kind: 'CONFLICT' });
    });

    it('tells two agents of one host apart by their configuration files, when both say which', async () => {
      const w = testWorld();
      const { agent: first } = await w.agents.register(
        reg({ instanceId: 'inst-1', configId: 'a'.repeat(32) }),
      );
      await w.agents.disconnected(USER, first.id); // restarting, or away for maintenance
      // The host's other agent (same default name: the host's) restarts meanwhile: both stay.
      const { agent: second } = await w.agents.register(
        reg({ instanceId: 'inst-2', configId: 'b'.repeat(32) }),
      );
      expect((await w.agents.list(USER)).map((a) => a.id).sort()).toEqual([first.id, second.id].sort());
      expect(
        (await w.agents.register(reg({ instanceId: 'inst-1', configId: 'a'.repeat(32) }))).agent.id,
      ).toBe(first.id);
      // Set up again from the same file: that one replaces its old registration.
      await w.agents.disconnected(USER, first.id);
      const { agent: again } = await w.agents.register(
        reg({ instanceId: 'inst-3', configId: 'a'.repeat(32) }),
      );
      expect((await w.agents.list(USER)).map((a) => a.id).sort()).toEqual([second.id, again.id].sort());
      // An agent too old to say which file it runs from is taken for the same installation, as before.
      await w.agents.disconnected(USER, second.id);
      const { agent: legacy } = await w.agents.register(reg({ instanceId: 'inst-4' }));
      expect((await w.agents.list(USER)).map((a) => a.id).sort()).toEqual([again.id, legacy.id].sort());
    });

    it("keeps connected ones, other names, other hosts and other users' agents", async () => {
      const w = testWorld();
      const connected = await w.connectAgent(['shop'], USER, 'inst-1');
      const { agent: otherName } = await w.agents.register(reg({ instanceId: 'inst-2', name: 'web-2' }));
      const { agent: otherHost } = await w.agents.register(
        reg({ instanceId: 'inst-3', hostname: 'web-2.internal' }),
      );
      const theirs = await w.connectAgent(['shop'], OTHER_USER, 'inst-4');
      for (const id of [otherName.id, otherHost.id]) await w.agents.disconnected(USER, id);
      await w.agents.disconnected(OTHER_USER, theirs);
      const fresh = await w.connectAgent(['shop'], USER, 'inst-5');
      expect((await w.agents.list(USER)).map((a) => a.id).sort()).toEqual(
        [connected, otherName.id, otherHost.id, fresh].sort(),
      );
      expect((await w.agents.list(OTHER_USER)).map((a) => a.id)).toEqual([theirs]);
    });
  });
});

describe('an agent whose API key was replaced', () => {
  it('is offline with that reason (the dashboard says what to run) until it connects with the new key', async () => {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    await w.agents.disconnected(USER, agentId, 'api-key-replaced');
    // The socket's own close report that follows is no news.
    await w.agents.disconnected(USER, agentId);
    expect(w.events.of('agent.agent.disconnected').map((e) => e.data.reason)).toEqual(['api-key-replaced']);
    expect((await w.agents.list(USER))[0]).toMatchObject({
      status: 'offline',
      offlineReason: 'api-key-replaced',
    });
    await w.connectAgent(['shop']);
    expect((await w.agents.list(USER))[0]).toMatchObject({ status: 'active', offlineReason: null });
  });
});

describe('an agent that says it is leaving', () => {
  it('is offline at once and gets no job: Trigger Backup is refused, the scheduler finds no agent', async () => {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    await w.agents.leaving(USER, agentId);
    expect((await w.agents.list(USER))[0]!.status).toBe('offline');
    await expect(w.backups.trigger(USER, 'shop')).rejects.toMatchObject({
      kind: 'UNAVAILABLE',
      code: 'AGENT_UNAVAILABLE',
      message: noAgentMessage('shop'),
    });
    expect(await w.dispatch.pickAgent(USER, 'shop')).toBeNull();
    expect(w.stores.backups.rows.size).toBe(0);
    // Its socket closing a moment later is the same disconnect: announced once.
    await w.agents.disconnected(USER, agentId);
    // It says it left on purpose, so notification sends no 'Agent disconnected' alarm.
    expect(w.events.of('agent.agent.disconnected').map((e) => e.data)).toEqual([
      { userId: USER, agentId, name: 'web-1', hostname: 'web-1.internal', leaving: 'stop' },
    ]);
  });

  it('fails the jobs it has not taken with the reason; the running ones keep the reason it reports', async () => {
    const w = testWorld({ plan: { dbLimit: 2 } });
    const agentId = await w.connectAgent(['shop', 'crm']);
    const running = await w.backups.trigger(USER, 'shop');
    await w.backups.delivery({
      userId: USER,
      agentId,
      commandId: running.commandId,
      jobId: running.id,
      delivered: true,
    });
    const waiting = await w.backups.trigger(USER, 'crm');
    await w.agents.leaving(USER, agentId);
    const rows = w.stores.backups.rows;
    expect(rows.get(waiting.id)).toMatchObject({
      status: 'failed',
      error: 'The agent was stopped before the backup could start',
    });
    expect(rows.get(running.id)!.status).toBe('in-progress');
    await w.backups.fail({ userId: USER, agentId, backupId: running.id, error: 'Agent stopped' });
    expect(rows.get(running.id)).toMatchObject({ status: 'failed', error: 'Agent stopped' });
    expect(w.events.of('backup.backup.failed').map((e) => e.data.backupId)).toEqual([waiting.id, running.id]);
  });

  it('says a restart is one, and comes back active when it registers again', async () => {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    const waiting = await w.backups.trigger(USER, 'shop');
    await w.agents.leaving(USER, agentId, true);
    expect(w.stores.backups.rows.get(waiting.id)!.error).toBe(
      'The agent restarted before the backup could start',
    );
    expect(w.events.of('agent.agent.disconnected').map((e) => e.data.leaving)).toEqual(['restart']);
    expect(await w.connectAgent(['shop'])).toBe(agentId);
    expect((await w.agents.list(USER))[0]!.status).toBe('active');
    expect((await w.dispatch.pickAgent(USER, 'shop'))?.id).toBe(agentId);
  });

  it("is refused for another user's agent", async () => {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    await expect(w.agents.leaving(OTHER_USER, agentId)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    expect((await w.agents.list(USER))[0]!.status).toBe('active');
  });
});

describe('what the audit log hears about user actions on agents', () => {
  it('announces each command the user sends and a removal, naming the agent', async () => {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    await w.agents.manage(USER, agentId, 'update');
    expect(w.events.of('agent.agent.action_requested').map((e) => e.data)).toEqual([
      { userId: USER, agentId, name: 'web-1', hostname: 'web-1.internal', action: 'update' },
    ]);
    await w.agents.remove(agentId, { userId: USER });
    expect(w.events.of('agent.agent.removed').map((e) => e.data)).toEqual([
      { userId: USER, agentId, name: 'web-1', hostname: 'web-1.internal', by: 'user' },
    ]);
  });

  it('announces nothing for a refused command or removal', async () => {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    await expect(w.agents.manage(OTHER_USER, agentId, 'restart')).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
    await expect(w.agents.remove(agentId, { userId: OTHER_USER })).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
    expect(w.events.of('agent.agent.action_requested')).toEqual([]);
    expect(w.events.of('agent.agent.removed')).toEqual([]);
  });
});

describe('per-account caps', () => {
  it(`refuses a new agent past ${LIMITS.agentsPerAccount}; the existing ones still register again`, async () => {
    const w = testWorld();
    for (let i = 0; i < LIMITS.agentsPerAccount; i++)
      await w.agents.register(reg({ instanceId: `inst-${i}`, name: `web-${i}`, databases: [] }));
    await expect(
      w.agents.register(reg({ instanceId: 'inst-x', name: 'one-more', databases: [] })),
    ).rejects.toMatchObject({ kind: 'LIMIT_REACHED', message: expect.stringMatching(/at most 50 agents/) });
    expect(await w.agents.list(USER)).toHaveLength(LIMITS.agentsPerAccount);
    await expect(
      w.agents.register(reg({ instanceId: 'inst-3', name: 'web-3', databases: [] })),
    ).resolves.toBeDefined();
    // Set up again on the same host (a new instance replacing a disconnected one) is not a new agent.
    await w.agents.disconnected(USER, (await w.agents.list(USER))[0]!.id);
    await expect(
      w.agents.register(reg({ instanceId: 'inst-0-again', name: 'web-0', databases: [] })),
    ).resolves.toBeDefined();
    // Another account is not affected.
    await expect(w.agents.register(reg({ userId: OTHER_USER, databases: [] }))).resolves.toBeDefined();
  });

  it(`refuses a registration that would take the account past ${LIMITS.databasesPerAccount} databases`, async () => {
    const w = testWorld();
    const names = (from: number, n: number) => Array.from({ length: n }, (_, i) => `db-${from + i}`);
    await w.agents.register(reg({ databases: names(0, LIMITS.databasesPerAccount - 1) }));
    await expect(
      w.agents.register(reg({ instanceId: 'inst-2', databases: names(500, 2) })),
    ).rejects.toMatchObject({
      kind: 'LIMIT_REACHED',
      message: expect.stringMatching(/at most 200 databases/),
    });
    expect(await w.databases.list(USER)).toHaveLength(LIMITS.databasesPerAccount - 1);
    // Names the account already has do not count again.
    await expect(
      w.agents.register(reg({ instanceId: 'inst-2', databases: [...names(0, 10), 'db-new'] })),
    ).resolves.toBeDefined();
    expect(await w.databases.list(USER)).toHaveLength(LIMITS.databasesPerAccount);
  });

  it('adds from a heartbeat only the databases that fit, keeping the agent connected', async () => {
    const w = testWorld();
    const agentId = await w.connectAgent(['shop']);
    const many = Array.from({ length: LIMITS.databasesPerAccount + 5 }, (_, i) => `db-${i}`);
    await w.agents.heartbeat({ userId: USER, agentId, runningJobs: [], databases: many });
    expect(await w.databases.list(USER)).toHaveLength(LIMITS.databasesPerAccount);
    expect((await w.agents.list(USER))[0]!.status).toBe('active');
  });

  it('holds both caps when many registrations of one account arrive at once', async () => {
    const w = testWorld();
    const names = (from: number, n: number) => Array.from({ length: n }, (_, i) => `db-${from + i}`);
    const flood = (count: number, dbs: (i: number) => string[], tag: string) =>
      Promise.allSettled(
        Array.from({ length: count }, (_, i) =>
          w.agents.register(reg({ instanceId: `${tag}-${i}`, name: `${tag}-${i}`, databases: dbs(i) })),
        ),
      );
    const refusedFor = (results: PromiseSettledResult<unknown>[]) =>
      results.flatMap((r) => (r.status === 'rejected' ? [r.reason as { kind: string }] : []));

    // 80 new agents with no database: 50 fit.
    const agents = await flood(80, () => [], 'bare');
    expect(await w.agents.list(USER)).toHaveLength(LIMITS.agentsPerAccount);
    expect(refusedFor(agents)).toHaveLength(80 - LIMITS.agentsPerAccount);
    for (const r of refusedFor(agents)) expect(r).toMatchObject({ kind: 'LIMIT_REACHED' });

    // Another account, 30 agents bringing 10 databases each: 200 fit, 20 agents' worth.
    const other = testWorld();
    const dbs = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        other.agents.register(reg({ instanceId: `db-${i}`, name: `db-${i}`, databases: names(i * 10, 10) })),
      ),
    );
    expect(await other.databases.list(USER)).toHaveLength(LIMITS.databasesPerAccount);
    expect(refusedFor(dbs)).toHaveLength(10);
  });

  it('abandons a registration whose deadline passed, before or while it waits, writing nothing', async () => {
    const w = testWorld();
    await expect(
      w.agents.register(reg(), { deadline: new Date(w.clock.now().getTime() - 1) }),
    ).rejects.toMatchObject({ kind: 'UNAVAILABLE', message: REGISTRATION_ABANDONED });
    // Another registration of the account holds its lease (on another replica, say).
    w.stores.leases.held.set(`register:${USER}`, { holder: 'elsewhere', expiresAt: new Date('2100-01-01') });
    await expect(
      w.agents.register(reg(), { deadline: new Date(w.clock.now().getTime() + 300) }),
    ).rejects.toMatchObject({ kind: 'UNAVAILABLE', message: REGISTRATION_ABANDONED });
    expect(await w.agents.list(USER)).toEqual([]);
    expect(await w.databases.list(USER)).toEqual([]);
    w.stores.leases.held.clear();
    await expect(w.agents.register(reg())).resolves.toBeDefined();
  });
});
