import type { handleUnaryCall, ServerUnaryCall, sendUnaryData, ServiceError } from '@grpc/grpc-js';
import { Metadata, status } from '@grpc/grpc-js';
import { createLogger, fromServiceError, USER_TOKEN_HEADER } from '@coffer/common';
import { orchestrator, schedule } from '@coffer/proto';
import { orchestratorHandlers } from './handlers';
import { ADMIN, ADMIN_TOKEN, OTHER_USER, USER, USER_TOKEN, agentRegistration, testWorld } from './test-world';

/** Calls a handler as gRPC would, with `userToken` in the metadata the gateway passes it in. */
function call<Req, Res>(fn: handleUnaryCall<Req, Res>, request: Req, userToken?: string) {
  const metadata = new Metadata();
  if (userToken) metadata.set(USER_TOKEN_HEADER, userToken);
  return new Promise<Res>((resolve, reject) => {
    const cb: sendUnaryData<Res> = (err, res) => (err ? reject(err) : resolve(res!));
    fn({ request, metadata } as ServerUnaryCall<Req, Res>, cb);
  });
}

function setup() {
  const w = testWorld();
  const h = orchestratorHandlers({ log: createLogger('test', 'silent'), ...w });
  return { w, h };
}

describe('orchestrator gRPC handlers', () => {
  it.each([
    ['a bad user id', { userId: 'nope', databaseName: 'shop' }, 'Invalid user id'],
    ['an empty database name', { userId: USER, databaseName: '' }, 'Database name is required'],
    [
      'a database name that is not an agent label',
      { userId: USER, databaseName: 'a/b' },
      'Database name must be 1 to 64 characters: letters, digits, dot, dash, underscore; starting with a letter or digit',
    ],
  ])('refuses %s with INVALID_ARGUMENT', async (_what, req, message) => {
    const { h } = setup();
    await expect(call(h.triggerBackup, req)).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: message,
    });
  });

  it('refuses settings outside the product options before looking at the plan', async () => {
    const { h, w } = setup();
    await expect(
      call(h.updateSettings, {
        userId: USER,
        frequency: schedule.BackupFrequency.BACKUP_FREQUENCY_UNSPECIFIED,
      }),
    ).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: 'Backup frequency must be 1, 24, 168 or 720 hours (hourly, daily, weekly or monthly)',
    });
    await expect(call(h.updateSettings, { userId: USER, retention: 100 })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    expect(w.plans.calls).toBe(0);
    await expect(call(h.getSettings, { userId: USER })).resolves.toEqual({
      frequency: schedule.BackupFrequency.BACKUP_FREQUENCY_DAILY,
      retention: 72,
      retentionLock: { enabled: false, offAt: undefined, offDelaySeconds: 7 * 24 * 3600 },
      retentionMode: orchestrator.RetentionMode.RETENTION_MODE_DAYS,
      gfs: undefined,
    });
  });

  it('saves GFS retention and previews it, refusing counts no setting can have', async () => {
    const { h, w } = setup();
    const gfs = { hourly: 0, daily: 7, weekly: 4, monthly: 0, yearly: 0 };
    await expect(
      call(h.previewRetention, { userId: USER, gfs: { ...gfs, daily: -1 } }),
    ).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: 'daily must be a whole number from 0 to 1000',
    });
    await expect(
      call(h.updateSettings, {
        userId: USER,
        retentionMode: orchestrator.RetentionMode.RETENTION_MODE_UNSPECIFIED,
      }),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT, details: 'Retention mode must be days or gfs' });
    expect(w.plans.calls).toBe(0);
    await expect(
      call(h.updateSettings, {
        userId: USER,
        retentionMode: orchestrator.RetentionMode.RETENTION_MODE_GFS,
        gfs,
      }),
    ).resolves.toMatchObject({ retentionMode: orchestrator.RetentionMode.RETENTION_MODE_GFS, gfs });
    await expect(call(h.previewRetention, { userId: USER, gfs })).resolves.toEqual({ backups: [] });
  });

  it('answers a rate-limited trigger with RESOURCE_EXHAUSTED and nextBackupAvailable for the gateway', async () => {
    const { h, w } = setup();
    await w.connectAgent(['shop']);
    const first = await call(h.triggerBackup, { userId: USER, databaseName: 'shop' });
    expect(first).toMatchObject({
      status: orchestrator.JobStatus.JOB_STATUS_PENDING,
      type: orchestrator.BackupType.BACKUP_TYPE_MANUAL,
      databaseName: 'shop',
      size: 0,
    });
    expect(first.timestamp).toBe(first.createdAt);
    const err = (await call(h.triggerBackup, { userId: USER, databaseName: 'shop' }).catch(
      (e: unknown) => e,
    )) as ServiceError;
    expect(err.code).toBe(status.RESOURCE_EXHAUSTED);
    const rebuilt = fromServiceError(err);
    expect(rebuilt).toMatchObject({ kind: 'LIMIT_REACHED', code: 'BACKUP_RATE_LIMITED', httpStatus: 429 });
    expect(rebuilt.details.nextBackupAvailable).toBe(
      new Date(Date.parse(first.createdAt) + 24 * 3_600_000).toISOString(),
    );
  });

  it('registers an agent and shows it in the system status', async () => {
    const { h } = setup();
    const res = await call(
      h.registerAgent,
      agentRegistration({ name: 'db-host', version: '1.2.3', databases: ['shop', 'shop', 'crm'] }),
    );
    expect(res.databases.map((d) => [d.name, d.isActive, d.enabled])).toEqual([
      ['shop', true, true],
      ['crm', false, true],
    ]);
    const s = await call(h.systemStatus, { userId: USER });
    expect(s).toMatchObject({
      backupService: true,
      agents: [{ id: res.agentId, name: 'db-host', status: 'active', version: '1.2.3' }],
    });
  });

  it.each(['hostname', 'platform', 'version'])(
    'registers what the gateway would: control and text-direction characters stripped from the %s',
    async (field) => {
      const { h } = setup();
      await call(h.registerAgent, agentRegistration({ [field]: 'x\u202Eexe.txt\u001b[2J' }));
      const { agents } = await call(h.systemStatus, { userId: USER });
      if (field === 'version') expect(agents[0]!.version).toBe('xexe.txt[2J');
      else expect(agents).toHaveLength(1);
    },
  );

  it('keeps the key fingerprint an agent reports in its own shape, and refuses collection names a restore cannot name', async () => {
    const { h } = setup();
    const reg = agentRegistration({ databases: ['shop'] });
    await expect(
      call(h.registerAgent, { ...reg, keyFingerprint: 'coffer-key-v1:abc+/=' }),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    const res = await call(h.registerAgent, { ...reg, keyFingerprint: '0123456789abcdef0123456789abcdef' });
    const s = await call(h.systemStatus, { userId: USER });
    expect(s.agents).toMatchObject([
      { id: res.agentId, databases: ['shop'], keyFingerprint: '0123456789abcdef0123456789abcdef' },
    ]);
    await expect(
      call(h.requestRestore, {
        userId: USER,
        backupId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
        databaseName: 'shop',
        confirm: [],
        collections: ['a$b'],
      }),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT, details: "'a$b' is not a collection name" });
  });

  it.each([
    ['an instance id too short to be one', { instanceId: 'i-1' }],
    ['a name with a text-direction override', { name: 'x\u202Eexe.txt' }],
    ['a version with a space (it would pass no NATS header)', { version: '1.0 beta' }],
    ['a configuration id that is no hash', { configId: '/etc/coffer/agent.json' }],
    ['a database name that is no label', { databases: ['has space'] }],
  ])('refuses what the gateway refuses at the handshake: %s', async (_what, over) => {
    const { h } = setup();
    await expect(call(h.registerAgent, { ...agentRegistration(), ...over })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    await expect(call(h.systemStatus, { userId: USER })).resolves.toMatchObject({ agents: [] });
  });

  describe('admin actions', () => {
    it('act for the admin whose session token comes with the call, as auth names them', async () => {
      const { h, w } = setup();
      const agentId = await w.connectAgent();
      await expect(call(h.adminListAgents, { userId: USER }, ADMIN_TOKEN)).resolves.toMatchObject({
        agents: [{ id: agentId }],
      });
      await expect(call(h.backupStats, {}, ADMIN_TOKEN)).resolves.toEqual({ totalCount: 0, totalSize: 0 });
      // Any user's agent, by its id alone; the removal names the verified admin.
      await call(h.adminDeleteAgent, { agentId }, ADMIN_TOKEN);
      expect(w.events.of('agent.agent.removed').map((e) => e.data)).toMatchObject([
        { userId: USER, agentId, by: 'admin', actorId: ADMIN },
      ]);
      await expect(call(h.adminListAgents, { userId: USER }, ADMIN_TOKEN)).resolves.toEqual({ agents: [] });
      await expect(call(h.adminDeleteAgent, { agentId }, ADMIN_TOKEN)).rejects.toMatchObject({
        code: status.NOT_FOUND,
      });
      // One question to auth per action.
      expect(w.adminCheck.calls).toEqual(Array(5).fill(ADMIN_TOKEN));
    });

    it.each([
      ['no session token', undefined, status.UNAUTHENTICATED],
      ['a token auth does not take', 'forged', status.UNAUTHENTICATED],
      ["a signed-in user's token who is not an admin", USER_TOKEN, status.PERMISSION_DENIED],
    ])('are refused with %s, and nothing changes', async (_what, token, code) => {
      const { h, w } = setup();
      const agentId = await w.connectAgent();
      await expect(call(h.adminDeleteAgent, { agentId }, token)).rejects.toMatchObject({ code });
      await expect(call(h.adminListAgents, { userId: USER }, token)).rejects.toMatchObject({ code });
      await expect(call(h.backupStats, {}, token)).rejects.toMatchObject({ code });
      expect((await w.agents.list(USER)).map((a) => a.id)).toEqual([agentId]);
      expect(w.events.of('agent.agent.removed')).toEqual([]);
    });

    it('take no actor from the request: a user id sent with a deletion narrows nothing and names no one', async () => {
      const { h, w } = setup();
      const agentId = await w.connectAgent();
      // Field 1 (user_id) is reserved: an old caller's value is not read.
      const old = { userId: OTHER_USER, agentId } as orchestrator.AdminDeleteAgentRequest;
      await expect(call(h.adminDeleteAgent, old)).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
      await call(h.adminDeleteAgent, old, ADMIN_TOKEN);
      expect(w.events.of('agent.agent.removed').map((e) => e.data)).toMatchObject([
        { userId: USER, by: 'admin', actorId: ADMIN },
      ]);
    });
  });

  it('lets the owner remove their own agent, and only theirs, without a session token', async () => {
    const { h, w } = setup();
    const agentId = await w.connectAgent();
    await expect(call(h.removeAgent, { userId: OTHER_USER, agentId })).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
    await call(h.removeAgent, { userId: USER, agentId });
    expect(w.events.of('agent.agent.removed').map((e) => e.data)).toMatchObject([
      { userId: USER, by: 'user' },
    ]);
    expect(w.events.of('agent.agent.removed')[0]!.data).not.toHaveProperty('actorId');
    expect(w.adminCheck.calls).toEqual([]);
  });

  it.each([orchestrator.AgentAction.AGENT_ACTION_UNSPECIFIED, orchestrator.AgentAction.UNRECOGNIZED])(
    'refuses the agent action %s',
    async (action) => {
      const { h, w } = setup();
      const agentId = await w.connectAgent();
      await expect(call(h.manageAgent, { userId: USER, agentId, action })).rejects.toMatchObject({
        code: status.INVALID_ARGUMENT,
        details: 'Action must be restart, update or reset',
      });
    },
  );

  it('needs a job id for job command reports', async () => {
    const { h, w } = setup();
    const agentId = await w.connectAgent();
    await expect(
      call(h.commandDelivery, {
        userId: USER,
        agentId,
        commandId: 'c',
        kind: orchestrator.CommandKind.COMMAND_KIND_BACKUP,
        delivered: true,
      }),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT, details: 'Invalid backup id' });
    await expect(
      call(h.commandDelivery, {
        userId: USER,
        agentId,
        commandId: 'c',
        kind: orchestrator.CommandKind.COMMAND_KIND_RESTART,
        delivered: false,
        error: 'x',
      }),
    ).resolves.toEqual({});
  });

  it('relays an update report to the domain and refuses an unknown status or a version with whitespace', async () => {
    const { h, w } = setup();
    const agentId = await w.connectAgent();
    const req = {
      userId: USER,
      agentId,
      status: orchestrator.AgentUpdateStatus.AGENT_UPDATE_STATUS_UPDATED,
      fromVersion: '1.0.0',
      toVersion: '1.1.0',
    };
    await expect(call(h.reportAgentUpdate, req)).resolves.toEqual({});
    expect(w.events.of('agent.agent.updated')).toHaveLength(1);
    await expect(
      call(h.reportAgentUpdate, {
        ...req,
        status: orchestrator.AgentUpdateStatus.AGENT_UPDATE_STATUS_UNSPECIFIED,
      }),
    ).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: 'Update status must be updated, current or failed',
    });
    await expect(call(h.reportAgentUpdate, { ...req, toVersion: '1.1.0\r\nX: y' })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: 'Version must not contain whitespace',
    });
  });
});
