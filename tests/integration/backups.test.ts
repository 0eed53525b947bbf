import crypto from 'node:crypto';
import { MongoClient, ObjectId } from 'mongodb';
import { io, type Socket } from 'socket.io-client';
import {
  AGENT_NAMESPACE,
  SOCKET_IO_PATH,
  type AgentToGatewayEvents,
  type CommandMessage,
  type GatewayToAgentEvents,
  type RegisteredMessage,
} from '@coffer/contracts';
import { adminToken, api, baseUrl, eventually, newUser, type TestUser } from './helpers';

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

describe('/api/backups in pages', () => {
  let mongo: MongoClient;
  beforeAll(async () => {
    mongo = await MongoClient.connect(process.env.COFFER_MONGO_URL!);
  });
  afterAll(() => mongo.close());

  // Rows as the orchestrator keeps them, written straight into its database: 7 backups (two
  // sharing a createdAt) and the same 7 restores.
  async function seed(u: TestUser): Promise<string[]> {
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const ids = Array.from({ length: 7 }, () => new ObjectId());
    const at = (i: number) => new Date(t0 + Math.min(i, 5) * 60_000);
    const job = (id: ObjectId, i: number) => ({
      _id: id,
      userId: u.id,
      databaseName: 'shop',
      agentId: someId,
      status: 'completed',
      createdAt: at(i),
      commandId: `c-${i}`,
      commandSentAt: at(i),
      startedAt: at(i),
      completedAt: at(i),
      error: null,
      absentSince: null,
    });
    const db = mongo.db('coffer_orchestrator');
    await db.collection('backups').insertMany(
      ids.map((id, i) => ({
        ...job(id, i),
        type: 'manual',
        size: 1,
        scheduleSlot: `manual:${id.toHexString()}`,
      })),
    );
    await db.collection('restores').insertMany(
      ids.map((id, i) => ({
        ...job(id, i),
        backupId: id.toHexString(),
        backupTimestamp: at(i),
        documentsRestored: 0,
        documentsFailed: 0,
      })),
    );
    return ids.map((id) => id.toHexString());
  }

  it.each(['/api/backups', '/api/backups/restores/all'] as const)(
    '%s: the plain call lists all, newest first; limit and before walk it page by page',
    async (path) => {
      const u = await newUser();
      await seed(u);
      const all = await api('GET', path, { token: u.token });
      expect(all.status).toBe(200);
      const ids = (all.body as { _id: string }[]).map((r) => r._id);
      expect(ids).toHaveLength(7);
      const walked: string[] = [];
      let before: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const q = `?limit=3${before ? `&before=${before}` : ''}`;
        const page = await api('GET', `${path}${q}` as typeof path, { token: u.token });
        expect(page.status).toBe(200);
        const got = (page.body as { _id: string }[]).map((r) => r._id);
        expect(got.length).toBeLessThanOrEqual(3);
        walked.push(...got);
        if (got.length < 3) break;
        before = got[got.length - 1];
      }
      expect(walked).toEqual(ids);
    },
  );

  it.each([
    ['/api/backups', 'backup'],
    ['/api/backups/restores/all', 'restore'],
  ] as const)(
    "%s: refuses a bad limit, and a cursor that is not one of the caller's rows",
    async (path, what) => {
      const u = await newUser();
      const [first] = await seed(u);
      const other = await newUser();
      for (const limit of ['0', '101', '2.5', 'x']) {
        const r = await api('GET', `${path}?limit=${limit}` as typeof path, { token: u.token });
        expect({ limit, status: r.status, message: r.body.message }).toEqual({
          limit,
          status: 400,
          message: 'limit must be a whole number from 1 to 100',
        });
      }
      expect((await api('GET', `${path}?before=nope` as typeof path, { token: u.token })).body.message).toBe(
        `Invalid ${what} id`,
      );
      const foreign = await api('GET', `${path}?before=${first}` as typeof path, { token: other.token });
      expect(foreign.status).toBe(404);
      expect(foreign.body.message).toBe(`That ${what} is no longer in your list: load the list again`);
    },
  );
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
 * A running backup of `user`, made the way an agent makes one but without mongodump: a socket on
 * the agents' namespace takes the backup command and acknowledges it; `upload` is the data plane's
 * PUT of the encrypted file. `close` disconnects the agent.
 */
async function runningBackup(user: TestUser, databaseName: string) {
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
    const id = triggered.body._id;
    expect(await command).toMatchObject({ kind: 'backup', jobId: id });
    const upload = (body: Buffer<ArrayBuffer>) =>
      fetch(`${baseUrl()}/api/agent/backups/${id}/data`, {
        method: 'PUT',
        headers: {
          'x-api-key': user.apiKey,
          'x-coffer-agent-id': registered.agentId,
          'x-coffer-key-fingerprint': 'test-key',
          'content-type': 'application/octet-stream',
        },
        body,
      });
    return { id, upload, close: () => socket.close() };
  } catch (err) {
    socket.close();
    throw err;
  }
}

/** A completed backup of `user` holding 1 KiB (see runningBackup). */
async function completedBackup(user: TestUser, databaseName: string): Promise<string> {
  const backup = await runningBackup(user, databaseName);
  try {
    expect((await backup.upload(crypto.randomBytes(1024))).status).toBe(200);
    return backup.id;
  } finally {
    backup.close();
  }
}

describe('the orchestrator decides, the gateway streams', () => {
  let mongo: MongoClient;
  beforeAll(async () => {
    mongo = await MongoClient.connect(process.env.COFFER_MONGO_URL!);
  });
  afterAll(() => mongo.close());
  const backupRecord = (id: string) =>
    mongo
      .db('coffer_orchestrator')
      .collection('backups')
      .findOne({ _id: new ObjectId(id) });

  it('refuses the download of a backup that has not completed, then streams it once it has', async () => {
    const u = await newUser('download-grant');
    const backup = await runningBackup(u, 'orders');
    try {
      const early = await api('GET', `/api/backups/${backup.id}/download`, { token: u.token });
      expect({ status: early.status, body: early.body }).toEqual({
        status: 409,
        body: { message: 'Only completed backups can be downloaded', code: 'CONFLICT' },
      });
      const bytes = crypto.randomBytes(2048);
      expect((await backup.upload(bytes)).status).toBe(200);
      const download = await fetch(`${baseUrl()}/api/backups/${backup.id}/download`, {
        headers: { authorization: `Bearer ${u.token}` },
      });
      expect(download.status).toBe(200);
      expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="backup-orders-/);
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    } finally {
      backup.close();
    }
  });

  it("cuts an upload at the storage limit the job's grant carries, and fails the backup", async () => {
    const u = await newUser('upload-grant');
    const backup = await runningBackup(u, 'orders');
    try {
      // The job recorded the plan's limit (Free: 1 GB) when it was created; the grant hands that on.
      const record = await backupRecord(backup.id);
      expect(record?.storageLimit).toBe(1024 ** 3);
      // Wait until the ack made it in progress (FerretDB rewrites whole documents), then lower
      // the recorded limit: only a grant read from the job, not the plan read again, cuts this upload.
      await eventually(async () =>
        expect((await api('GET', `/api/backups/${backup.id}`, { token: u.token })).body.status).toBe(
          'in-progress',
        ),
      );
      await mongo
        .db('coffer_orchestrator')
        .collection('backups')
        .updateOne({ _id: new ObjectId(backup.id) }, { $set: { storageLimit: 1000 } });
      const refused = await backup.upload(crypto.randomBytes(4096));
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: 'STORAGE_LIMIT_EXCEEDED' });
      const failed = await api('GET', `/api/backups/${backup.id}`, { token: u.token });
      expect(failed.body).toMatchObject({ status: 'failed', error: expect.stringMatching(/storage limit/i) });
    } finally {
      backup.close();
    }
  });
});

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
