import { MongoClient } from 'mongodb';
import { seedDatabase } from '../../agent/src/testing/database-fixtures';
import type { GetAuditLogsApiResponse } from '../../web/src/api/generated-types';
import { adminToken, api, eventually, newUser, planId, type TestUser } from './helpers';
import {
  backupCompleted,
  customerDbForFile,
  restoreEnded,
  setupAgent,
  uniqueName,
  type Agent,
} from './pipeline/harness';

jest.setTimeout(120_000);

const logsOf = async (u: TestUser, query = ''): Promise<GetAuditLogsApiResponse> => {
  const res = await api('GET', `/api/user/audit-logs${query}`, { token: u.token });
  expect(res.status).toBe(200);
  return res.body;
};

/** Waits until the user's audit log holds `count` entries (the audit service writes from events). */
const untilTotal = (u: TestUser, count: number) =>
  eventually(async () => {
    const body = await logsOf(u);
    expect(body.pagination.total).toBe(count);
    return body;
  });

describe('GET /api/user/audit-logs and /api/user/audit-actions', () => {
  it('need a token', async () => {
    expect((await api('GET', '/api/user/audit-logs')).status).toBe(401);
    expect((await api('GET', '/api/user/audit-actions')).status).toBe(401);
    expect((await api('GET', '/api/user/audit-logs', { token: 'garbage' })).status).toBe(401);
  });

  it('refuse a bad page or an unknown action with a 400 that says so', async () => {
    const u = await newUser();
    for (const page of ['0', '-1', 'abc', '1.5']) {
      const res = await api('GET', `/api/user/audit-logs?page=${page}`, { token: u.token });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/page/i);
    }
    const bad = await api('GET', '/api/user/audit-logs?action=DROP_EVERYTHING', { token: u.token });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Unknown audit action');
  });

  it('start empty for a new account, with one page', async () => {
    const u = await newUser();
    expect(await logsOf(u, '?page=1&action=')).toEqual({
      logs: [],
      pagination: { total: 0, page: 1, pages: 1 },
    });
    expect((await api('GET', '/api/user/audit-actions', { token: u.token })).body).toEqual([]);
  });

  it("record a password change exactly once, in the caller's log only", async () => {
    const u = await newUser();
    const other = await newUser();
    const before = Date.now();
    const res = await api('PUT', '/api/user/password', {
      token: u.token,
      body: { currentPassword: u.password, newPassword: 'a-new-password-2' },
    });
    expect(res.status).toBe(200);
    // A password change ends every session: the caller goes on with the token it answered.
    u.token = res.body.token;

    const { logs } = await untilTotal(u, 1);
    expect(logs).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        timestamp: expect.any(String),
        action: 'PASSWORD_CHANGED',
        entity: 'User',
        entityId: u.id,
        actor: 'User',
        details: { value: 'Changed in the profile' },
      },
    ]);
    const at = Date.parse(logs[0]!.timestamp);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(Date.now());

    // Still one entry a moment later (no second write from a redelivery), and none for the other user.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await logsOf(u)).pagination.total).toBe(1);
    expect((await logsOf(other)).logs).toEqual([]);
    expect((await api('GET', '/api/user/audit-actions', { token: u.token })).body).toEqual([
      'PASSWORD_CHANGED',
    ]);
    expect((await api('GET', '/api/user/audit-actions', { token: other.token })).body).toEqual([]);
  });

  it('record a plan change with the plan name, and filter by action', async () => {
    const admin = await adminToken();
    const u = await newUser();
    const pro = await planId('Pro');
    expect(
      (await api('PUT', `/api/admin/users/${u.id}`, { token: admin.token, body: { plan: pro } })).status,
    ).toBe(200);
    expect((await api('POST', '/api/settings/regenerate-api-key', { token: u.token })).status).toBe(200);
    await untilTotal(u, 2);

    const plan = await logsOf(u, '?action=PLAN_CHANGED');
    expect(plan.pagination).toEqual({ total: 1, page: 1, pages: 1 });
    // An admin made the change; the user's log labels spec actions by product §4's rule: 'User'.
    expect(plan.logs[0]).toMatchObject({ action: 'PLAN_CHANGED', actor: 'User', details: { value: 'Pro' } });
    expect((await api('GET', '/api/user/audit-actions', { token: u.token })).body).toEqual([
      'API_KEY_REGENERATED',
      'PLAN_CHANGED',
    ]);
  });

  it('page 20 entries at a time, newest first', async () => {
    const u = await newUser();
    for (let i = 0; i < 22; i++) {
      expect((await api('POST', '/api/settings/regenerate-api-key', { token: u.token })).status).toBe(200);
    }
    const first = await untilTotal(u, 22);
    expect(first.logs).toHaveLength(20);
    expect(first.pagination).toEqual({ total: 22, page: 1, pages: 2 });
    const times = first.logs.map((l) => Date.parse(l.timestamp));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const second = await logsOf(u, '?page=2');
    expect(second.pagination).toEqual({ total: 22, page: 2, pages: 2 });
    expect(second.logs).toHaveLength(2);
    const ids = new Set([...first.logs, ...second.logs].map((l) => l.id));
    expect(ids.size).toBe(22);
    expect(Date.parse(second.logs[0]!.timestamp)).toBeLessThanOrEqual(times[19]!);

    const past = await logsOf(u, '?page=3');
    expect(past).toEqual({ logs: [], pagination: { total: 22, page: 3, pages: 2 } });
  });
});

describe('audit details of the backup pipeline, databases and agents (real agent)', () => {
  const LABEL = 'shop';
  const DB = uniqueName('auditdb_');
  const credentials = { user: uniqueName('audituser_'), password: uniqueName('audit-pw-') };
  const customer = customerDbForFile();
  let owner: TestUser;
  let agent: Agent;

  /** Every entry of the owner's log (all pages), once `action` is among them. */
  const entriesOnceThere = (action: string, count = 1) =>
    eventually(async () => {
      const first = await logsOf(owner);
      const logs = [...first.logs];
      for (let p = 2; p <= first.pagination.pages; p++)
        logs.push(...(await logsOf(owner, `?page=${p}`)).logs);
      expect(logs.filter((l) => l.action === action).length).toBeGreaterThanOrEqual(count);
      return logs;
    }, 20_000);
  const entry = async (action: string) => (await entriesOnceThere(action)).find((l) => l.action === action)!;

  beforeAll(async () => {
    owner = await newUser('audit');
    await seedDatabase(customer().client, DB, { events: 50 });
    agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB, credentials) }]);
  }, 120_000);

  it('records a backup with its database, size and duration, and a restore with the backup it restored and its counts', async () => {
    const backup = await backupCompleted(owner.token, LABEL, agent);
    expect(await entry('BACKUP_CREATED')).toMatchObject({
      entity: 'Backup',
      entityId: backup._id,
      actor: 'User',
      details: { databaseName: LABEL, type: 'manual' },
    });
    const completed = await entry('BACKUP_COMPLETED');
    expect(completed.details).toEqual({
      databaseName: LABEL,
      type: 'manual',
      size: backup.size,
      durationMs: expect.any(Number),
    });
    expect(backup.size).toBeGreaterThan(0);

    const restore = await restoreEnded(owner.token, backup._id, LABEL, agent);
    expect(restore.status).toBe('completed');
    expect((await entry('RESTORE_REQUESTED')).details).toEqual({
      databaseName: LABEL,
      backupTimestamp: backup.timestamp,
    });
    expect(await entry('RESTORE_COMPLETED')).toMatchObject({
      entity: 'Restore',
      entityId: restore._id,
      actor: 'User',
      details: {
        databaseName: LABEL,
        backupTimestamp: backup.timestamp,
        documentsRestored: restore.documentsRestored,
        documentsFailed: 0,
        durationMs: expect.any(Number),
      },
    });
    expect(restore.documentsRestored).toBeGreaterThan(0);

    expect((await api('DELETE', `/api/backups/${backup._id}`, { token: owner.token })).status).toBe(200);
    expect((await entry('BACKUP_DELETED_MANUAL')).details).toEqual({
      databaseName: LABEL,
      type: 'manual',
      size: backup.size,
      backupTimestamp: backup.timestamp,
    });
  });

  it('records a database turned off and on, by name', async () => {
    const dbs = (await api('GET', '/api/settings/databases', { token: owner.token })).body;
    const db = dbs.find((d) => d.name === LABEL)!;
    for (const isActive of [false, true]) {
      const res = await api('PUT', `/api/settings/databases/${db._id}`, {
        token: owner.token,
        body: { isActive },
      });
      expect(res.status).toBe(200);
    }
    for (const action of ['DATABASE_DISABLED', 'DATABASE_ENABLED']) {
      expect(await entry(action)).toMatchObject({
        entity: 'Database',
        entityId: db._id,
        actor: 'User',
        details: { databaseName: LABEL },
      });
    }
  });

  it('records a change of how a database is verified', async () => {
    const dbs = (await api('GET', '/api/settings/databases', { token: owner.token })).body;
    const db = dbs.find((d) => d.name === LABEL)!;
    const res = await api('PUT', `/api/settings/databases/${db._id}/verify`, {
      token: owner.token,
      body: { verify: 'weekly' },
    });
    expect(res.status).toBe(200);
    expect(await entry('VERIFICATION_UPDATED')).toMatchObject({
      entity: 'Database',
      entityId: db._id,
      actor: 'User',
      details: { databaseName: LABEL, value: 'Off → Verify weekly' },
    });
  });

  it('records agent commands and the removal of the agent by the user, naming the agent', async () => {
    const status = (await api('GET', '/api/settings/system-status', { token: owner.token })).body;
    const listed = status.agents.find((a) => a.name === agent.name)!;
    const manage = await api('POST', `/api/agents/manage/${listed.id}`, {
      token: owner.token,
      body: { action: 'update' },
    });
    expect(manage.status).toBe(200);
    expect(await entry('AGENT_UPDATE_REQUESTED')).toMatchObject({
      entity: 'Agent',
      entityId: listed.id,
      actor: 'User',
      details: { name: agent.name },
    });

    expect((await api('DELETE', `/api/agents/${listed.id}`, { token: owner.token })).status).toBe(200);
    expect(await entry('AGENT_REMOVED')).toMatchObject({
      entity: 'Agent',
      entityId: listed.id,
      actor: 'User',
      details: { name: agent.name },
    });
    // The agent's own actions name it as the actor.
    expect((await entry('AGENT_REGISTERED')).actor).toBe(agent.name);
  });

  it('keeps no secret in any stored audit entry: no API key, connection string, credential or database name', async () => {
    await entriesOnceThere('AGENT_REMOVED');
    const client = await MongoClient.connect(process.env.COFFER_MONGO_URL!);
    try {
      const stored = JSON.stringify(
        await client.db('coffer_audit').collection('audit_entries').find({}).toArray(),
      );
      expect(stored).toContain(owner.id);
      for (const secret of [
        owner.apiKey,
        customer().uri(DB, credentials),
        credentials.user,
        credentials.password,
        DB,
      ]) {
        expect(stored).not.toContain(secret);
      }
    } finally {
      await client.close();
    }
  });
});
