// The authorisation matrix (issue 15): every operation of the gateway's OpenAPI document, called
// as anonymous, a banned user, another user on the owner's objects, an admin and the owner, plus
// the agent channel (data plane and Socket.IO reports) with one user's API key against another
// user's jobs. The operations come from services/gateway/openapi.json at test time, so a new route
// fails this suite until EXPECTATIONS classifies it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { io, type Socket } from 'socket.io-client';
import {
  AGENT_NAMESPACE,
  SOCKET_IO_PATH,
  type AgentToGatewayEvents,
  type CommandMessage,
  type GatewayToAgentEvents,
  type RegisteredMessage,
} from '@coffer/contracts';
import {
  adminToken,
  api,
  baseUrl,
  eventually,
  newUser,
  randomIp,
  uniqueEmail,
  type TestUser,
} from '../helpers';
import {
  backupCompleted,
  cleanupAll,
  REPO,
  requestRestore,
  requirePrerequisites,
  setupAgent,
  startCustomerDb,
  uniqueName,
  restoreEnded,
  type Agent,
} from '../pipeline/harness';

jest.setTimeout(240_000);

type Access = 'public' | 'user' | 'admin' | 'agent';
/** `forged`: the owner's own claims in a token signed with another key, and a made-up API key. */
type Role = 'anonymous' | 'forged' | 'banned' | 'other' | 'admin' | 'owner';
const ROLES: Role[] = ['anonymous', 'forged', 'banned', 'other', 'admin', 'owner'];

interface Fixtures {
  owner: TestUser;
  other: TestUser;
  banned: TestUser;
  admin: TestUser;
  forged: TestUser;
  /** Created for the admin routes that ban, change and delete a user. */
  victim: TestUser;
  /** The owner's real agent, its database and the backup and restore it made. */
  agentId: string;
  databaseId: string;
  databaseLabel: string;
  backupId: string;
  /** The owner's protocol agent, which holds a backup and a restore in progress. */
  protocolAgentId: string;
  inflightBackupId: string;
  inflightRestoreId: string;
  /** The other user's and the admin's protocol agents (each id goes with its user's API key). */
  otherAgentId: string;
  adminAgentId: string;
  article: { id: string; slug: string };
  plans: Partial<Record<Role, string>>;
}

interface Expectation {
  access: Access;
  /** The call names one of the owner's objects (path or body): anyone else must get 404. */
  owned?: boolean;
  /** Runs after every role's other calls (it deletes or retires a fixture). */
  destructive?: boolean;
  /** Ends the session it is called with: each role calls it with a session of its own. */
  endsSession?: boolean;
  /** A banned account may call it too (signing out). */
  suspendedAllowed?: boolean;
  body?: (f: Fixtures, role: Role) => unknown;
}

const strongPassword = 'another-horse-2';

/**
 * One entry per operationId of the OpenAPI document. Bodies are valid, so that the answer is
 * decided by who calls, not by input validation.
 */
const EXPECTATIONS: Record<string, Expectation> = {
  login: {
    access: 'public',
    body: (f) => ({ email: f.other.email, password: f.other.password }),
  },
  register: {
    access: 'public',
    body: () => ({ name: 'Matrix User', email: uniqueEmail('matrix-reg'), password: strongPassword }),
  },
  forgotPassword: { access: 'public', body: () => ({ email: uniqueEmail('matrix-forgot') }) },
  verifyResetToken: { access: 'public' },
  resetPassword: { access: 'public', body: () => ({ password: strongPassword }) },
  confirmNotificationEmail: {
    access: 'public',
    body: () => ({ token: crypto.randomBytes(32).toString('hex') }),
  },
  // A made-up challenge: refused (401) whoever sends it.
  loginSecondFactor: { access: 'public', body: () => ({ challenge: 'not-a-challenge', code: '123456' }) },
  getPlans: { access: 'public' },
  listArticles: { access: 'public' },
  listArticleCategories: { access: 'public' },
  listArticleTags: { access: 'public' },
  getArticle: { access: 'public' },
  getPublicConfig: { access: 'public' },
  getServerVersion: { access: 'public' },
  // Unsigned here: the signature, not a session, is what admits a webhook.
  billingWebhook: { access: 'public' },

  logout: { access: 'user', endsSession: true, suspendedAllowed: true },

  getProfile: { access: 'user' },
  updateProfile: { access: 'user', body: () => ({ name: 'Matrix User' }) },
  // A wrong current password: the answer must still be the caller's own 400, never a session change.
  changePassword: {
    access: 'user',
    body: () => ({ currentPassword: 'not-the-password-1', newPassword: strongPassword }),
  },
  getUserPlan: { access: 'user' },
  // Two-factor sign-in of the caller's own account; none of the fixtures has it on, so the
  // answers are the caller's own 400/409 (a wrong code, nothing to step up to), never a refusal.
  stepUp: { access: 'user', body: () => ({ code: '123456' }) },
  getTwoFactor: { access: 'user' },
  startTwoFactorSetup: { access: 'user' },
  enableTwoFactor: { access: 'user', body: () => ({ code: '000000' }) },
  disableTwoFactor: { access: 'user' },
  regenerateRecoveryCodes: { access: 'user' },
  // The caller's current plan (a no-op switch); others' plans are not objects of the owner.
  updatePlan: { access: 'user', body: (f, role) => ({ plan: f.plans[role] ?? f.plans.owner }) },
  getAuditLogs: { access: 'user' },
  getAuditActions: { access: 'user' },
  getBilling: { access: 'user' },
  getSettings: { access: 'user' },
  // Off when it is not on: the caller's own 200, nothing locked for the later cases.
  setRetentionLock: { access: 'user', body: () => ({ enabled: false }) },
  previewRetention: {
    access: 'user',
    body: () => ({ gfs: { hourly: 0, daily: 1, weekly: 0, monthly: 0, yearly: 0 } }),
  },
  updateSettings: { access: 'user', body: () => ({ notifications: { backupSuccess: true } }) },
  resendNotificationEmailConfirmation: { access: 'user' },
  cancelNotificationEmailChange: { access: 'user' },
  getSystemStatus: { access: 'user' },
  getDatabases: { access: 'user' },
  updateDatabase: { access: 'user', owned: true, body: () => ({ isActive: true }) },
  updateDatabaseVerify: { access: 'user', owned: true, body: () => ({ verify: 'off' }) },
  regenerateApiKey: { access: 'user', destructive: true },
  sendTestNotification: { access: 'user' },
  getBackups: { access: 'user' },
  triggerBackup: { access: 'user', owned: true, body: (f) => ({ databaseName: f.databaseLabel }) },
  getRestores: { access: 'user' },
  getBackup: { access: 'user', owned: true },
  deleteBackup: { access: 'user', owned: true, destructive: true },
  downloadBackup: { access: 'user', owned: true },
  restoreBackup: { access: 'user', owned: true, body: (f) => ({ databaseName: f.databaseLabel }) },
  verifyBackup: { access: 'user', owned: true },
  checkServerStatus: { access: 'user' },
  // 'update' on a current agent only checks; 'restart'/'reset' would take the fixture away.
  manageAgent: { access: 'user', owned: true, body: () => ({ action: 'update' }) },
  removeAgent: { access: 'user', owned: true, destructive: true },

  uploadBackupData: { access: 'agent', owned: true },
  downloadRestoreData: { access: 'agent', owned: true },
  // No verification is in flight in these fixtures: the id names a restore, which is no
  // verification of anyone's (404 for every role that gets past authentication).
  downloadVerificationData: { access: 'agent' },

  adminListUsers: { access: 'admin' },
  adminUpdateUser: { access: 'admin', body: () => ({ status: 'active' }) },
  adminSetBan: { access: 'admin', body: () => ({ isBanned: false, banReason: null }) },
  adminDeleteUser: { access: 'admin', destructive: true },
  adminBackupStats: { access: 'admin' },
  adminListUserAgents: { access: 'admin' },
  adminDeleteAgent: { access: 'admin', destructive: true },
  adminListPlans: { access: 'admin' },
  adminGetSecuritySettings: { access: 'admin' },
  // Off, as it is: turning it on would send the shared admin to set up two-factor sign-in.
  adminUpdateSecuritySettings: { access: 'admin', body: () => ({ requireAdminTwoFactor: false }) },
  listAllArticles: { access: 'admin' },
  createArticle: {
    access: 'admin',
    body: () => ({ title: 'Matrix article', slug: uniqueName('matrix-'), content: 'Body.' }),
  },
  updateArticle: { access: 'admin', body: () => ({ isPublished: true }) },
  deleteArticle: { access: 'admin', destructive: true },
};

// ---------------------------------------------------------------------------------------------
// The document: operations and the access each declares.

interface Operation {
  operationId: string;
  method: string;
  path: string;
  op: any;
}

const doc = JSON.parse(fs.readFileSync(path.join(REPO, 'services/gateway/openapi.json'), 'utf8'));

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [p, item] of Object.entries<any>(doc.paths))
    for (const [method, op] of Object.entries<any>(item))
      if (['get', 'put', 'post', 'delete', 'patch'].includes(method))
        out.push({
          operationId: op.operationId ?? `${method} ${p}`,
          method: method.toUpperCase(),
          path: p,
          op,
        });
  return out;
}

/** What the document says about who may call: its security, and the 403 it documents for non-admins. */
function documentedAccess(op: any): Access {
  const schemes = (op.security ?? doc.security ?? []).flatMap((s: object) => Object.keys(s));
  if (schemes.length === 0) return 'public';
  if (schemes.includes('apiKey')) return 'agent';
  return /not an admin/i.test(op.responses?.['403']?.description ?? '') ? 'admin' : 'user';
}

const OBJECT_ID = /^\^\[0-9a-f\]\{24\}\$$/;
const KIND_OF_SEGMENT: Record<string, string> = {
  backups: 'backup',
  restores: 'restore',
  verifications: 'verification',
  databases: 'database',
  users: 'user',
  agents: 'agent',
};

/**
 * One rule per path parameter name: `token` is a random secret, `article` a slug or an id as its
 * schema says, `agentId` an agent, and `id` the kind named by the segment before it. Agent routes
 * name the jobs in progress; admin routes name the victim user and the owner's protocol agent.
 */
function paramValue(name: string, o: Operation, f: Fixtures): string {
  const param = (o.op.parameters ?? []).find((x: any) => x.in === 'path' && x.name === name);
  if (name === 'token') return crypto.randomBytes(32).toString('hex');
  if (name === 'article') return OBJECT_ID.test(param?.schema?.pattern ?? '') ? f.article.id : f.article.slug;
  const segments = o.path.split('/');
  const kind =
    name === 'agentId' ? 'agent' : KIND_OF_SEGMENT[segments[segments.indexOf(`{${name}}`) - 1] ?? ''];
  const scope = o.path.startsWith('/api/agent/')
    ? 'agent'
    : o.path.startsWith('/api/admin/')
      ? 'admin'
      : 'user';
  const value = (<Record<string, string>>{
    'user:backup': f.backupId,
    'user:database': f.databaseId,
    'user:agent': f.agentId,
    'agent:backup': f.inflightBackupId,
    'agent:restore': f.inflightRestoreId,
    'agent:verification': f.inflightRestoreId,
    'admin:user': f.victim.id,
    'admin:agent': f.protocolAgentId,
  })[`${scope}:${kind}`] as string | undefined;
  if (!value) throw new Error(`no rule for path parameter {${name}} in ${o.method} ${o.path}`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Calling and judging.

interface Outcome {
  status: number;
  code?: string;
  violation?: string;
}

function credentials(role: Role, f: Fixtures): { user?: TestUser; agentId: string } {
  switch (role) {
    case 'anonymous':
      return { agentId: '' };
    case 'forged':
      return { user: f.forged, agentId: f.protocolAgentId };
    case 'banned':
      return { user: f.banned, agentId: '' };
    case 'other':
      return { user: f.other, agentId: f.otherAgentId };
    case 'admin':
      return { user: f.admin, agentId: f.adminAgentId };
    case 'owner':
      return { user: f.owner, agentId: f.protocolAgentId };
  }
}

async function call(o: Operation, role: Role, f: Fixtures): Promise<{ status: number; body: any }> {
  const e = EXPECTATIONS[o.operationId]!;
  const url = o.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(paramValue(n, o, f)));
  const { user, agentId } = credentials(role, f);
  // Every call poses as its own client, so per-IP limits never decide an answer here.
  const headers: Record<string, string> = { 'x-forwarded-for': randomIp() };
  if (user) {
    headers.authorization = `Bearer ${e.endsSession && role !== 'forged' ? await signIn(user) : user.token}`;
    headers['x-api-key'] = user.apiKey;
    headers['x-coffer-agent-id'] = agentId;
  }
  let body: BodyInit | undefined;
  const content = o.op.requestBody?.content ?? {};
  if (content['application/octet-stream']) {
    headers['content-type'] = 'application/octet-stream';
    headers['x-coffer-key-fingerprint'] = 'matrix-key';
    body = crypto.randomBytes(2048);
  } else if (content['application/json']) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(e.body ? e.body(f, role) : {});
  }
  const res = await fetch(baseUrl() + url, { method: o.method, headers, body });
  const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
  let parsed: any = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    // a file or HTML: only the status matters
  }
  return { status: res.status, body: parsed };
}

/** A session of its own for a call that ends the one it is made with. */
async function signIn(user: TestUser): Promise<string> {
  const res = await api('POST', '/api/auth/login', { body: { email: user.email, password: user.password } });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status}`);
  return res.body.token;
}

/** The conventions (docs/engineering.md, REST contract) as one rule per access × role. */
function judge(e: Expectation, role: Role, status: number, body: any): string | undefined {
  if (status >= 500) return `server error ${status}`;
  if (e.access === 'public') return undefined;
  if (role === 'anonymous' || role === 'forged')
    return status === 401 ? undefined : `expected 401, got ${status}`;
  if (role === 'banned' && !e.suspendedAllowed)
    return status === 403 && body?.code === 'ACCOUNT_BANNED'
      ? undefined
      : `expected 403 ACCOUNT_BANNED, got ${status} ${body?.code ?? ''}`;
  if (e.access === 'admin' && role !== 'admin')
    return status === 403 ? undefined : `expected 403 for a non-admin, got ${status}`;
  if (e.owned && role !== 'owner')
    return status === 404 ? undefined : `expected 404 on another user's object, got ${status}`;
  // Allowed: the caller's own account or object. Refusing it is as wrong as letting others in.
  // 403 with these codes is the plan or the database's switch speaking, not access.
  if (status === 401 || (status === 403 && !['PAYMENT_REQUIRED', 'DATABASE_INACTIVE'].includes(body?.code)))
    return `allowed caller refused with ${status} ${body?.code ?? ''}`;
  if (e.owned && status === 404) return 'the owner got 404 on its own object';
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Fixtures: real users, a real agent with a real backup and restore, and protocol agents.

/** The same header and claims, signed with a key the service never had. */
function resigned(token: string): string {
  const [header, payload] = token.split('.');
  const signature = crypto
    .createHmac('sha256', crypto.randomBytes(32))
    .update(`${header}.${payload}`)
    .digest('base64url');
  return `${header}.${payload}.${signature}`;
}

type AgentSocket = Socket<GatewayToAgentEvents, AgentToGatewayEvents>;
const sockets: AgentSocket[] = [];

/** An agent speaking the protocol from the test, so its jobs stay in progress as long as needed. */
async function protocolAgent(
  user: TestUser,
  databases: string[],
): Promise<{ socket: AgentSocket; agentId: string; commands: CommandMessage[] }> {
  const socket: AgentSocket = io(`${baseUrl()}${AGENT_NAMESPACE}`, {
    path: SOCKET_IO_PATH,
    auth: {
      apiKey: user.apiKey,
      instanceId: `matrix-${crypto.randomBytes(6).toString('hex')}`,
      name: 'matrix protocol agent',
      databases,
    },
    transports: ['websocket'],
    reconnection: false,
  });
  sockets.push(socket);
  const commands: CommandMessage[] = [];
  socket.on('command', (c, ack) => {
    ack({ accepted: true });
    commands.push(c);
  });
  const registered = await new Promise<RegisteredMessage>((resolve, reject) => {
    socket.once('registered', resolve);
    socket.once('connect_error', reject);
  });
  return { socket, agentId: registered.agentId, commands };
}

const emitAck = <
  E extends 'backup:failed' | 'restore:started' | 'restore:completed' | 'restore:failed' | 'heartbeat',
>(
  socket: AgentSocket,
  event: E,
  payload: Parameters<AgentToGatewayEvents[E]>[0],
): Promise<{ ok: boolean; error?: string }> =>
  new Promise((resolve) => (socket.emit as any)(event, payload, resolve));

let f: Fixtures;
let ownerAgent: Awaited<ReturnType<typeof protocolAgent>>;
let otherAgent: Awaited<ReturnType<typeof protocolAgent>>;
let realAgent: Agent;
let heartbeat: NodeJS.Timeout | undefined;

beforeAll(async () => {
  requirePrerequisites();
  const root = await adminToken();
  const [ownerUser, other, banned, admin, victim] = (await Promise.all(
    ['matrix-owner', 'matrix-other', 'matrix-banned', 'matrix-admin', 'matrix-victim'].map((p) => newUser(p)),
  )) as [TestUser, TestUser, TestUser, TestUser, TestUser];
  // The matrix's admin is one it made, so its calls change no account other tests rely on.
  const promoted = await api('PUT', `/api/admin/users/${admin.id}`, {
    token: root.token,
    body: { role: 'admin' },
  });
  if (promoted.status !== 200)
    throw new Error(`promote: ${promoted.status} ${JSON.stringify(promoted.body)}`);
  const ban = await api('PUT', `/api/admin/users/${banned.id}/ban`, {
    token: root.token,
    body: { isBanned: true, banReason: 'authorisation matrix' },
  });
  if (ban.status !== 200) throw new Error(`ban: ${ban.status} ${JSON.stringify(ban.body)}`);

  // Room for the protocol agent's databases besides the real one (plans cap databases per account).
  const catalogue = await api('GET', '/api/settings/plans');
  const roomy = (catalogue.body as any[]).reduce((a, b) => (b.dbLimit > a.dbLimit ? b : a));
  const upgraded = await api('PUT', `/api/admin/users/${ownerUser.id}`, {
    token: root.token,
    body: { plan: roomy._id },
  });
  if (upgraded.status !== 200) throw new Error(`plan: ${upgraded.status} ${JSON.stringify(upgraded.body)}`);

  // A real agent makes a real backup of a real database, and restores it.
  const customer = await startCustomerDb();
  const dbName = uniqueName('matrix_');
  await customer.client
    .db(dbName)
    .collection('orders')
    .insertMany([{ n: 1 }, { n: 2 }]);
  const databaseLabel = 'matrix-db';
  realAgent = await setupAgent(ownerUser, [{ label: databaseLabel, uri: customer.uri(dbName) }]);
  const backup = await backupCompleted(ownerUser.token, databaseLabel, realAgent);
  const restored = await restoreEnded(ownerUser.token, backup._id, databaseLabel, realAgent);
  expect(restored.status).toBe('completed');

  // The owner's protocol agent: one completed backup, then a restore of it and another backup
  // that it accepts and never finishes, for the data plane and the reports.
  ownerAgent = await protocolAgent(ownerUser, ['matrix-a', 'matrix-b']);
  const first = await api('POST', '/api/backups', {
    token: ownerUser.token,
    body: { databaseName: 'matrix-a' },
  });
  expect(first.status).toBe(201);
  await eventually(async () => expect(ownerAgent.commands.map((c) => c.jobId)).toContain(first.body._id));
  const upload = await fetch(`${baseUrl()}/api/agent/backups/${first.body._id}/data`, {
    method: 'PUT',
    headers: {
      'x-api-key': ownerUser.apiKey,
      'x-coffer-agent-id': ownerAgent.agentId,
      'x-coffer-key-fingerprint': 'matrix-key',
      'content-type': 'application/octet-stream',
    },
    body: crypto.randomBytes(1024),
  });
  expect(upload.status).toBe(200);
  const inflightRestore = await requestRestore(ownerUser.token, first.body._id, 'matrix-a');
  const inflightBackup = await api('POST', '/api/backups', {
    token: ownerUser.token,
    body: { databaseName: 'matrix-b' },
  });
  expect(inflightBackup.status).toBe(201);
  await eventually(async () =>
    expect(ownerAgent.commands.map((c) => c.jobId)).toEqual(
      expect.arrayContaining([inflightRestore._id, inflightBackup.body._id]),
    ),
  );
  // Heartbeats list the jobs as running, so nothing times them out while the matrix runs.
  const beat = () =>
    void emitAck(ownerAgent.socket, 'heartbeat', {
      runningJobs: [inflightRestore._id, inflightBackup.body._id],
      databases: ['matrix-a', 'matrix-b'],
    });
  beat();
  heartbeat = setInterval(beat, 5000);

  otherAgent = await protocolAgent(other, ['matrix-other']);
  const adminAgent = await protocolAgent(admin, []);

  const databases = await api('GET', '/api/settings/databases', { token: ownerUser.token });
  const database = (databases.body as any[]).find((d) => d.name === databaseLabel);
  const status = await api('GET', '/api/settings/system-status', { token: ownerUser.token });
  const agent = (status.body.agents as any[]).find((a) => a.name === realAgent.name);

  const article = await api('POST', '/api/kb', {
    token: root.token,
    body: {
      title: 'Matrix fixture',
      slug: uniqueName('matrix-fixture-'),
      content: 'Body.',
      isPublished: true,
    },
  });
  expect(article.status).toBe(201);

  const plans: Fixtures['plans'] = {};
  for (const [role, u] of [
    ['owner', ownerUser],
    ['other', other],
    ['admin', admin],
  ] as const) {
    const plan = await api('GET', '/api/user/plan', { token: u.token });
    plans[role] = plan.body?._id;
  }

  f = {
    owner: ownerUser,
    forged: {
      ...ownerUser,
      token: resigned(ownerUser.token),
      apiKey: `cof_${crypto.randomBytes(24).toString('hex')}`,
    },
    other,
    banned,
    admin,
    victim,
    agentId: agent._id ?? agent.id,
    databaseId: database._id ?? database.id,
    databaseLabel,
    backupId: backup._id,
    protocolAgentId: ownerAgent.agentId,
    inflightBackupId: inflightBackup.body._id,
    inflightRestoreId: inflightRestore._id,
    otherAgentId: otherAgent.agentId,
    adminAgentId: adminAgent.agentId,
    article: { id: article.body._id, slug: article.body.slug },
    plans,
  };
});

afterAll(async () => {
  if (heartbeat) clearInterval(heartbeat);
  for (const s of sockets) s.close();
  await cleanupAll();
});

// ---------------------------------------------------------------------------------------------

describe('the agent channel with another user’s API key', () => {
  it("cannot upload, download, report progress on, complete or fail the owner's jobs", async () => {
    const job = async () =>
      (await api('GET', `/api/backups/${f.inflightBackupId}`, { token: f.owner.token })).body;
    const restoreOf = async () =>
      ((await api('GET', '/api/backups/restores/all', { token: f.owner.token })).body as any[]).find(
        (r) => r._id === f.inflightRestoreId,
      );
    const backupBefore = await job();
    const restoreBefore = await restoreOf();
    expect(backupBefore.status).not.toMatch(/completed|failed/);
    expect(restoreBefore.status).not.toMatch(/completed|failed/);

    const dataPlane = { 'x-api-key': f.other.apiKey, 'x-coffer-agent-id': f.otherAgentId };
    const upload = await fetch(`${baseUrl()}/api/agent/backups/${f.inflightBackupId}/data`, {
      method: 'PUT',
      headers: {
        ...dataPlane,
        'x-coffer-key-fingerprint': 'forged',
        'content-type': 'application/octet-stream',
      },
      body: crypto.randomBytes(4096),
    });
    expect(upload.status).toBe(404);
    const download = await fetch(`${baseUrl()}/api/agent/restores/${f.inflightRestoreId}/data`, {
      headers: dataPlane,
    });
    expect(download.status).toBe(404);
    expect(Buffer.from(await download.arrayBuffer()).length).toBeLessThan(1024);

    // The owner watches live events: a forged progress report must never reach them.
    const browser = io(baseUrl(), {
      path: SOCKET_IO_PATH,
      auth: { token: f.owner.token },
      transports: ['websocket'],
    });
    const seen: Array<{ collection?: string }> = [];
    browser.on('backupProgress' as any, (e: any) => seen.push({ collection: e.progress?.collection }));
    browser.on('restoreProgress' as any, (e: any) => seen.push({ collection: e.progress?.collection }));
    await new Promise<void>((resolve, reject) => {
      browser.once('connect', () => resolve());
      browser.once('connect_error', reject);
    });
    try {
      const forged = { current: 1, total: 1, percentage: 100, collection: 'forged' };
      otherAgent.socket.emit('backup:progress', { backupId: f.inflightBackupId, progress: forged });
      otherAgent.socket.emit('restore:progress', { restoreId: f.inflightRestoreId, progress: forged });
      const acks = {
        backupFailed: await emitAck(otherAgent.socket, 'backup:failed', {
          backupId: f.inflightBackupId,
          error: 'forged',
        }),
        restoreStarted: await emitAck(otherAgent.socket, 'restore:started', {
          restoreId: f.inflightRestoreId,
        }),
        restoreCompleted: await emitAck(otherAgent.socket, 'restore:completed', {
          restoreId: f.inflightRestoreId,
          documentsRestored: 1,
          documentsFailed: 0,
        }),
        restoreFailed: await emitAck(otherAgent.socket, 'restore:failed', {
          restoreId: f.inflightRestoreId,
          error: 'forged',
        }),
      };
      for (const [name, ack] of Object.entries(acks))
        expect({ name, ok: ack.ok }).toEqual({ name, ok: false });

      // The owner's own agent reports next; by the time that arrives, a relayed forgery would have too.
      const genuine = { current: 1, total: 2, percentage: 50, collection: 'genuine' };
      ownerAgent.socket.emit('backup:progress', { backupId: f.inflightBackupId, progress: genuine });
      await eventually(async () => expect(seen.map((s) => s.collection)).toContain('genuine'));
      expect(seen.map((s) => s.collection)).not.toContain('forged');
    } finally {
      browser.close();
    }

    const backupAfter = await job();
    expect(backupAfter).toMatchObject({ status: backupBefore.status, size: backupBefore.size });
    expect(backupAfter.error).toBeUndefined();
    expect((await restoreOf()).status).toBe(restoreBefore.status);
  });
});

describe('every operation of the OpenAPI document × every role', () => {
  it('answers 401 / 403 / 404 as the conventions say, never 5xx, and classifies every operation', async () => {
    const ops = operations();
    const problems: string[] = [];
    for (const o of ops) {
      const e = EXPECTATIONS[o.operationId];
      if (!e) problems.push(`${o.operationId} (${o.method} ${o.path}): no expectation in the matrix`);
      else if (documentedAccess(o.op) !== e.access)
        problems.push(
          `${o.operationId}: the document says access ${documentedAccess(o.op)}, the matrix ${e.access}`,
        );
    }
    for (const id of Object.keys(EXPECTATIONS))
      if (!ops.some((o) => o.operationId === id)) problems.push(`${id}: in the matrix, not in the document`);

    const results = new Map<string, Partial<Record<Role, Outcome>>>();
    const classified = ops.filter((o) => EXPECTATIONS[o.operationId]);
    // Destructive calls last, so every other call finds the fixtures; the owner comes last of the
    // roles (ROLES), so its own deletions also show that nobody else's calls took its objects.
    const phases = [
      classified.filter((o) => !EXPECTATIONS[o.operationId]!.destructive),
      classified.filter((o) => EXPECTATIONS[o.operationId]!.destructive),
    ];
    for (const phase of phases)
      for (const role of ROLES)
        for (const o of phase) {
          const e = EXPECTATIONS[o.operationId]!;
          let outcome: Outcome;
          try {
            const res = await call(o, role, f);
            outcome = {
              status: res.status,
              code: res.body?.code,
              violation: judge(e, role, res.status, res.body),
            };
          } catch (err) {
            outcome = { status: 0, violation: `call failed: ${(err as Error).message}` };
          }
          results.set(o.operationId, { ...results.get(o.operationId), [role]: outcome });
        }

    // Nothing another user or the admin sent touched the owner's objects before the owner's own
    // destructive calls: the backup was still there for the owner to delete.
    const ownerDelete = results.get('deleteBackup')?.owner;
    if (ownerDelete && ownerDelete.status !== 200)
      problems.push(`the owner's backup was gone before the owner deleted it (${ownerDelete.status})`);

    const violations: string[] = [];
    const width = Math.max(...classified.map((o) => o.operationId.length));
    const lines = [`${'operation'.padEnd(width)}  access  ${ROLES.map((r) => r.padEnd(9)).join(' ')}`];
    for (const o of classified) {
      const row = results.get(o.operationId) ?? {};
      lines.push(
        `${o.operationId.padEnd(width)}  ${EXPECTATIONS[o.operationId]!.access.padEnd(6)}  ${ROLES.map((r) =>
          `${row[r]?.status ?? '-'}${row[r]?.violation ? '!' : ''}`.padEnd(9),
        ).join(' ')}`,
      );
      for (const r of ROLES)
        if (row[r]?.violation) violations.push(`${o.operationId} as ${r}: ${row[r]!.violation}`);
    }
    lines.push(
      `${classified.length} operations × ${ROLES.length} roles: ${violations.length} violations, ${problems.length} unclassified or mismatched`,
    );
    console.log(['Authorisation matrix (! = violation)', ...lines, ...violations, ...problems].join('\n'));
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
  });
});
