import crypto from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import {
  AGENT_NAMESPACE,
  SOCKET_IO_PATH,
  type AgentToGatewayEvents,
  type CommandMessage,
  type GatewayToAgentEvents,
  type RegisteredMessage,
} from '@coffer/contracts';
import { adminToken, api, baseUrl, newUser, type TestUser } from './helpers';

const someId = 'c0ffee0000000000c0ffee00';

describe('/api/backups without an agent', () => {
  it('needs a token on every route', async () => {
    for (const [method, path] of [
      ['GET', '/api/backups'],
      ['POST', '/api/backups'],
      ['GET', `/api/backups/${someId}`],
      ['DELETE', `/api/backups/${someId}`],
      ['GET', `/api/backups/${someId}/download`],
      ['POST', `/api/backups/${someId}/restore`],
      ['GET', '/api/backups/restores/all'],
    ] as const) {
      expect((await api(method, path)).status).toBe(401);
    }
  });

  it('starts empty', async () => {
    const u = await newUser();
    expect((await api('GET', '/api/backups', { token: u.token })).body).toEqual([]);
    expect((await api('GET', '/api/backups/restores/all', { token: u.token })).body).toEqual([]);
  });

  it('validates ids and bodies', async () => {
    const u = await newUser();
    const badId = await api('GET', '/api/backups/not-an-id', { token: u.token });
    expect(badId.status).toBe(400);
    expect(badId.body.message).toBe('Invalid backup id');
    const noName = await api('POST', '/api/backups', { token: u.token, body: {} });
    expect(noName.status).toBe(400);
    expect(noName.body.message).toBe('databaseName is required');
    const op = await api('POST', '/api/backups', { token: u.token, body: { databaseName: { $ne: '' } } });
    expect(op.status).toBe(400);
  });

  it('answers 404 for an unknown backup', async () => {
    const u = await newUser();
    for (const [method, path] of [
      ['GET', `/api/backups/${someId}`],
      ['DELETE', `/api/backups/${someId}`],
      ['GET', `/api/backups/${someId}/download`],
    ] as const) {
      expect((await api(method, path, { token: u.token })).status).toBe(404);
    }
    const restore = await api('POST', `/api/backups/${someId}/restore`, {
      token: u.token,
      body: { databaseName: 'production-db' },
    });
    expect(restore.status).toBe(404);
  });

  it('refuses to back up a database no agent reported', async () => {
    const u = await newUser();
    const res = await api('POST', '/api/backups', {
      token: u.token,
      body: { databaseName: 'production-db' },
    });
    expect(res.status).toBe(404);
    expect(res.body.message).toMatch(/database/i);
  });
});

describe('system status, databases and agents without an agent', () => {
  it('shows no agents and a working backup service', async () => {
    const u = await newUser();
    expect((await api('GET', '/api/settings/system-status')).status).toBe(401);
    const res = await api('GET', '/api/settings/system-status', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ agents: [], backupService: true });
    expect((await api('GET', '/api/agents/server-status', { token: u.token })).body).toEqual({
      status: 'ok',
    });
  });

  it('lists no databases and validates database updates', async () => {
    const u = await newUser();
    expect((await api('GET', '/api/settings/databases', { token: u.token })).body).toEqual([]);
    const bad = await api('PUT', '/api/settings/databases/nope', {
      token: u.token,
      body: { isActive: true },
    });
    expect(bad.status).toBe(400);
    const badBody = await api('PUT', `/api/settings/databases/${someId}`, {
      token: u.token,
      body: { isActive: 'yes' },
    });
    expect(badBody.status).toBe(400);
    expect(badBody.body.message).toBe('isActive must be true or false');
    const missing = await api('PUT', `/api/settings/databases/${someId}`, {
      token: u.token,
      body: { isActive: true },
    });
    expect(missing.status).toBe(404);
  });

  it('validates agent commands', async () => {
    const u = await newUser();
    const bad = await api('POST', `/api/agents/manage/${someId}`, {
      token: u.token,
      body: { action: 'explode' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('action must be restart, update or reset');
    const missing = await api('POST', `/api/agents/manage/${someId}`, {
      token: u.token,
      body: { action: 'restart' },
    });
    expect(missing.status).toBe(404);
  });

  it('gives admins backup statistics', async () => {
    const u = await newUser();
    expect((await api('GET', '/api/admin/stats/backups', { token: u.token })).status).toBe(403);
    const admin = await adminToken();
    const res = await api('GET', '/api/admin/stats/backups', { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      totalCount: expect.any(Number),
      totalSize: expect.any(Number),
      formattedSize: expect.any(String),
    });
    expect((await api('GET', `/api/admin/users/${u.id}/agents`, { token: admin.token })).body).toEqual([]);
  });
});

describe('agent data endpoints', () => {
  it('need a valid API key', async () => {
    const none = await api('PUT', `/api/agent/backups/${someId}/data`, {
      rawBody: 'x',
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(none.status).toBe(401);
    const bad = await api('GET', `/api/agent/restores/${someId}/data`, {
      headers: { 'x-api-key': 'cof_nope' },
    });
    expect(bad.status).toBe(401);
    expect(bad.body.message).toBe('Invalid API key');
  });

  it("refuse an upload for a backup that is not the agent's", async () => {
    const u = await newUser();
    const res = await api('PUT', `/api/agent/backups/${someId}/data`, {
      headers: {
        'x-api-key': u.apiKey,
        'x-coffer-agent-id': someId,
        'x-coffer-key-fingerprint': 'abc123',
        'content-type': 'application/octet-stream',
      },
      rawBody: 'ciphertext',
    });
    expect(res.status).toBe(404);
  });
});

/**
 * A completed backup of `user`, made the way an agent makes one but without mongodump: a socket
 * on the agents' namespace takes the backup command, and the data plane receives some bytes.
 */
async function completedBackup(user: TestUser, databaseName: string): Promise<string> {
  const socket: Socket<GatewayToAgentEvents, AgentToGatewayEvents> = io(`${baseUrl()}${AGENT_NAMESPACE}`, {
    path: SOCKET_IO_PATH,
    auth: {
      apiKey: user.apiKey,
      instanceId: `test-${crypto.randomBytes(6).toString('hex')}`,
      name: 'protocol test agent',
      databases: [databaseName],
    },
    transports: ['websocket'],
    reconnection: false,
  });
  try {
    const registered = await new Promise<RegisteredMessage>((resolve, reject) => {
      socket.once('registered', resolve);
      socket.once('connect_error', reject);
    });
    const command = new Promise<CommandMessage>((resolve) =>
      socket.on('command', (c, ack) => {
        ack({ accepted: true });
        resolve(c);
      }),
    );
    const triggered = await api('POST', '/api/backups', { token: user.token, body: { databaseName } });
    expect(triggered.status).toBe(201);
    expect(await command).toMatchObject({ kind: 'backup', jobId: triggered.body._id });
    const upload = await fetch(`${baseUrl()}/api/agent/backups/${triggered.body._id}/data`, {
      method: 'PUT',
      headers: {
        'x-api-key': user.apiKey,
        'x-coffer-agent-id': registered.agentId,
        'x-coffer-key-fingerprint': 'test-key',
        'content-type': 'application/octet-stream',
      },
      body: crypto.randomBytes(1024),
    });
    expect(upload.status).toBe(200);
    return triggered.body._id;
  } finally {
    socket.close();
  }
}

describe("another user's existing backup", () => {
  it("is a 404 for GET, DELETE, download and restore, and stays the owner's", async () => {
    const owner = await newUser('owner');
    const other = await newUser('other');
    const id = await completedBackup(owner, 'orders');
    const mine = await api('GET', `/api/backups/${id}`, { token: owner.token });
    expect(mine.body).toMatchObject({ _id: id, status: 'completed', databaseName: 'orders', size: 1024 });

    for (const [method, path, body] of [
      ['GET', `/api/backups/${id}`, undefined],
      ['DELETE', `/api/backups/${id}`, undefined],
      ['GET', `/api/backups/${id}/download`, undefined],
      ['POST', `/api/backups/${id}/restore`, { databaseName: 'orders' }],
    ] as const) {
      const res = await api(method, path, { token: other.token, body });
      expect({ method, path, status: res.status, body: res.body }).toEqual({
        method,
        path,
        status: 404,
        body: { message: 'Backup not found', code: 'NOT_FOUND' },
      });
    }

    // Nothing the other user sent touched it: the owner still has it, and can download it.
    expect((await api('GET', `/api/backups/${id}`, { token: owner.token })).body.status).toBe('completed');
    const download = await fetch(`${baseUrl()}/api/backups/${id}/download`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(download.status).toBe(200);
    expect((await download.arrayBuffer()).byteLength).toBe(1024);
  });
});
