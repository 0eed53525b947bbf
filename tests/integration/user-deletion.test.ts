// Deleting a user through the whole stack (docs/architecture.md, "Deleting an account"): a real
// agent makes a real backup and restore, the user has settings and a notification address waiting
// for confirmation; then an admin deletes them. Afterwards no service's database, and no stored
// file, holds anything of theirs, their token and API key are refused at once, and the admin's
// audit log keeps USER_DELETED. A second case deletes a user while storage and the orchestrator
// take no events (their AUTH consumers paused, as if both were down) and sees the job finished once
// they take events again.
import fs from 'node:fs';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { MongoClient } from 'mongodb';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { natsConnectOptions } from '@coffer/common';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { adminToken, api, eventually, newUser, planId, uniqueEmail, type TestUser } from './helpers';
import { seedDatabase } from '../../agent/src/testing/database-fixtures';
import {
  backupCompleted,
  customerDbForFile,
  restoreEnded,
  setupAgent,
  uniqueName,
  type Agent,
} from './pipeline/harness';

jest.setTimeout(240_000);

/** Every service's database (their default names, which the test stack keeps). */
const SERVICE_DBS = [
  'coffer_auth',
  'coffer_orchestrator',
  'coffer_storage',
  'coffer_notification',
  'coffer_audit',
  'coffer_kb',
];
/** The durable AUTH consumers of the services the second case holds back. */
const HELD_BACK = ['storage', 'orchestrator'];
const SOME_ID = 'a'.repeat(24);
/** The bucket the test stack's storage uses on S3 (deploy/local/src/stack.ts). */
const S3_BUCKET = 'coffer-backups';

const customer = customerDbForFile();
let mongo: MongoClient;
let nats: NatsConnection;
let jsm: JetStreamManager;
let admin: { id: string; token: string };

beforeAll(async () => {
  mongo = await MongoClient.connect(process.env.COFFER_MONGO_URL!);
  nats = await connect(natsConnectOptions(process.env.COFFER_NATS_URL!));
  jsm = await jetstreamManager(nats);
  admin = await adminToken();
});

afterAll(async () => {
  // Never leave the shared stack's consumers paused, whatever happened above.
  for (const name of HELD_BACK) await jsm?.consumers.resume('AUTH', name).catch(() => undefined);
  await nats?.close();
  await mongo?.close();
});

/**
 * Where the user still shows up: every document of every service database whose JSON holds
 * their id or e-mail, as 'db.collection: document'. Two kinds are no trace of the user: the
 * admin's own audit entries about them (USER_DELETED and the like, in the admin's log), and
 * notification's de-duplication records (an event id and the user id, the address already
 * blanked), which stop a replayed event from mailing twice until they are pruned.
 */
async function tracesOf(u: TestUser): Promise<string[]> {
  const found: string[] = [];
  for (const name of SERVICE_DBS) {
    const db = mongo.db(name);
    for (const { name: coll } of await db.listCollections().toArray()) {
      for (const doc of await db.collection(coll).find({}).toArray()) {
        const text = JSON.stringify(doc);
        if (!text.includes(u.id) && !text.includes(u.email)) continue;
        if (name === 'coffer_audit' && doc.userId === admin.id) continue;
        if (name === 'coffer_notification' && coll === 'outbox' && !text.includes(u.email)) continue;
        found.push(`${name}.${coll}: ${text.slice(0, 400)}`);
      }
    }
  }
  return found;
}
const placesOf = (traces: string[]) => [...new Set(traces.map((t) => t.slice(0, t.indexOf(':'))))].sort();

/** Whether the gateway takes the API key (an agent call for a restore that is not theirs: 404). */
async function apiKeyStatus(u: TestUser): Promise<number> {
  const headers = { 'x-api-key': u.apiKey, 'x-coffer-agent-id': SOME_ID };
  return (await api('GET', `/api/agent/restores/${SOME_ID}/data`, { headers })).status;
}

/** What the storage backend holds of the user: files under their folder, or S3 objects under their prefix. */
async function storedOf(u: TestUser): Promise<string[]> {
  if (process.env.COFFER_STORAGE_BACKEND !== 's3') {
    const dir = path.join(process.env.COFFER_DATA_DIR!, 'storage', 'blobs', u.id);
    return fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]) : [];
  }
  const s3 = new S3Client({
    endpoint: process.env.COFFER_S3_URL,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: {
      accessKeyId: process.env.COFFER_S3_ACCESS_KEY_ID!,
      secretAccessKey: process.env.COFFER_S3_SECRET_ACCESS_KEY!,
    },
  });
  try {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: S3_BUCKET, Prefix: `blobs/${u.id}/` }));
    return (listed.Contents ?? []).map((o) => o.Key!);
  } finally {
    s3.destroy();
  }
}

/** The admin's USER_DELETED entry about `u`, once the audit service has written it. */
async function deletionEntry(u: TestUser): Promise<any> {
  return eventually(async () => {
    for (let page = 1; ; page++) {
      const res = await api('GET', `/api/user/audit-logs?action=USER_DELETED&page=${page}`, {
        token: admin.token,
      });
      expect(res.status).toBe(200);
      const hit = res.body.logs.find((l: any) => l.entityId === u.id);
      if (hit) return hit;
      if (page >= res.body.pagination.pages) throw new Error(`no USER_DELETED entry for ${u.id} yet`);
    }
  }, 30_000);
}

/** A user with an agent, a completed backup (its blob stored) and whatever else `extra` adds. */
async function userWithBackup(prefix: string): Promise<{ user: TestUser; agent: Agent; backup: any }> {
  const user = await newUser(prefix);
  const dbName = uniqueName(`${prefix}_`);
  await seedDatabase(customer().client, dbName, { events: 50 });
  const agent = await setupAgent(user, [{ label: 'shop', uri: customer().uri(dbName) }]);
  const backup = await backupCompleted(user.token, 'shop', agent);
  expect((await storedOf(user)).length).toBeGreaterThan(0);
  return { user, agent, backup };
}

describe('DELETE /api/admin/users/{id}', () => {
  it('answers 401 without a token, 403 to a user, 400 for a bad id or oneself, 404 for no such user', async () => {
    const u = await newUser('ladder');
    expect((await api('DELETE', `/api/admin/users/${u.id}`)).status).toBe(401);
    expect((await api('DELETE', `/api/admin/users/${u.id}`, { token: u.token })).status).toBe(403);
    const bad = await api('DELETE', '/api/admin/users/nope', { token: admin.token });
    expect(bad.status).toBe(400);
    const self = await api('DELETE', `/api/admin/users/${admin.id}`, { token: admin.token });
    expect(self.status).toBe(400);
    expect(self.body.message).toBe('You cannot delete your own account');
    const none = await api('DELETE', `/api/admin/users/${SOME_ID}`, { token: admin.token });
    expect(none.status).toBe(404);
    // Nothing happened to anyone.
    expect((await api('GET', '/api/user/profile', { token: u.token })).status).toBe(200);
  });

  it('removes everything of the user in every service and in storage; their token and API key stop at once', async () => {
    const { user, agent, backup } = await userWithBackup('doomed');
    const restore = await restoreEnded(user.token, backup._id, 'shop');
    expect(restore.status).toBe('completed');
    const settings = await api('PUT', '/api/settings', {
      token: user.token,
      body: {
        frequency: 'weekly',
        retention: 72,
        notifications: { backupSuccess: false },
        email: uniqueEmail('doomed-ops'),
      },
    });
    expect(settings.status).toBe(200);
    expect(settings.body.pendingEmail).toEqual(expect.any(String));
    expect(await apiKeyStatus(user)).toBe(404);

    // The scan finds the user where each service keeps them (so its empty answer below means something).
    const before = placesOf(
      await eventually(async () => {
        const t = await tracesOf(user);
        expect(placesOf(t)).toEqual(
          expect.arrayContaining([
            'coffer_auth.users',
            'coffer_orchestrator.agents',
            'coffer_orchestrator.databases',
            'coffer_orchestrator.backups',
            'coffer_orchestrator.restores',
            'coffer_orchestrator.settings',
            'coffer_storage.blobs',
            'coffer_notification.preferences',
            'coffer_audit.audit_entries',
          ]),
        );
        return t;
      }, 20_000),
    );
    expect(before.length).toBeGreaterThan(0);

    const res = await api('DELETE', `/api/admin/users/${user.id}`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'User deleted' });

    // At once: the session and the API key are refused.
    const profile = await api('GET', '/api/user/profile', { token: user.token });
    expect(profile.status).toBe(401);
    expect(await apiKeyStatus(user)).toBe(401);

    // Then every service catches up.
    await eventually(async () => expect(await tracesOf(user)).toEqual([]), 60_000);
    expect(await storedOf(user)).toEqual([]);

    const entry = await deletionEntry(user);
    expect(entry).toMatchObject({
      action: 'USER_DELETED',
      entity: 'User',
      entityId: user.id,
      actor: 'Admin',
      details: { value: user.email },
    });
    const users = await api('GET', '/api/admin/users', { token: admin.token });
    expect(users.body.map((u) => u._id)).not.toContain(user.id);
    expect((await api('DELETE', `/api/admin/users/${user.id}`, { token: admin.token })).status).toBe(404);
    // Its socket was closed, and its reconnection with the dead key is refused: it never comes
    // back as a record.
    await agent.waitForLog((l) => l.msg === 'the server refused the connection', 60_000);
    expect(await tracesOf(user)).toEqual([]);
  });

  it('finishes the deletion when storage and the orchestrator take events again after missing it', async () => {
    const { user } = await userWithBackup('held');
    for (const name of HELD_BACK)
      // A deadline of its own, so the stack recovers even if this test dies before resuming.
      await jsm.consumers.pause('AUTH', name, new Date(Date.now() + 120_000));
    try {
      const res = await api('DELETE', `/api/admin/users/${user.id}`, { token: admin.token });
      expect(res.status).toBe(200);
      expect((await api('GET', '/api/user/profile', { token: user.token })).status).toBe(401);
      expect(await apiKeyStatus(user)).toBe(401);

      // Half-way: auth, audit and notification are done; the user's backups, agent and blobs are
      // still where the held-back services keep them.
      await deletionEntry(user);
      const halfway = await eventually(async () => {
        const places = placesOf(await tracesOf(user));
        expect(places).not.toContain('coffer_auth.users');
        expect(places).not.toContain('coffer_audit.audit_entries');
        expect(places).not.toContain('coffer_notification.preferences');
        return places;
      }, 30_000);
      expect(halfway).toEqual(
        expect.arrayContaining([
          'coffer_orchestrator.agents',
          'coffer_orchestrator.backups',
          'coffer_storage.blobs',
        ]),
      );
      expect((await storedOf(user)).length).toBeGreaterThan(0);
    } finally {
      for (const name of HELD_BACK) await jsm.consumers.resume('AUTH', name);
    }

    await eventually(async () => expect(await tracesOf(user)).toEqual([]), 60_000);
    expect(await storedOf(user)).toEqual([]);
  });
});

describe("admin actions on an account, in the admin's audit log", () => {
  /** The admin's latest entry of `action` about `u`. */
  const adminEntry = (action: string, u: TestUser) =>
    eventually(async () => {
      const res = await api('GET', `/api/user/audit-logs?action=${action}`, { token: admin.token });
      expect(res.status).toBe(200);
      const hit = res.body.logs.find((l: any) => l.entityId === u.id);
      if (!hit) throw new Error(`no ${action} entry about ${u.id} yet`);
      return hit;
    }, 20_000);

  it('records role, status, plan, ban and unban with the admin as actor and the user by e-mail', async () => {
    const u = await newUser('managed');
    const pro = await planId('Pro');
    const put = (body: object) => api('PUT', `/api/admin/users/${u.id}`, { token: admin.token, body });
    expect((await put({ role: 'admin' })).status).toBe(200);
    expect((await put({ status: 'inactive' })).status).toBe(200);
    expect((await put({ plan: pro })).status).toBe(200);
    const ban = (body: object) => api('PUT', `/api/admin/users/${u.id}/ban`, { token: admin.token, body });
    expect((await ban({ isBanned: true, banReason: 'Chargeback' })).status).toBe(200);
    expect((await ban({ isBanned: false })).status).toBe(200);

    const about = { entity: 'User', entityId: u.id, actor: 'Admin' };
    expect(await adminEntry('USER_ROLE_CHANGED', u)).toMatchObject({
      ...about,
      details: { value: `${u.email}: admin` },
    });
    expect(await adminEntry('USER_STATUS_CHANGED', u)).toMatchObject({
      ...about,
      details: { value: `${u.email}: inactive` },
    });
    expect(await adminEntry('USER_PLAN_CHANGED', u)).toMatchObject({
      ...about,
      details: { value: `${u.email}: Pro` },
    });
    expect(await adminEntry('USER_BANNED', u)).toMatchObject({
      ...about,
      details: { value: `${u.email}: Chargeback` },
    });
    expect(await adminEntry('USER_UNBANNED', u)).toMatchObject({ ...about, details: { value: u.email } });

    // The user's own log shows the plan change (read once the account is active again: an
    // inactive account's token is refused), labelled by product §4's rule: 'User'.
    expect((await put({ status: 'active' })).status).toBe(200);
    const own = await eventually(async () => {
      const res = await api('GET', '/api/user/audit-logs?action=PLAN_CHANGED', { token: u.token });
      expect(res.body.logs).toHaveLength(1);
      return res.body.logs[0];
    }, 20_000);
    expect(own).toMatchObject({ actor: 'User', details: { value: 'Pro' } });
  });
});
