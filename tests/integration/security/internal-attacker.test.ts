import { execFileSync } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { adminToken, api, eventually, mailsTo, newUser, waitForMail, type TestUser } from '../helpers';

// The attacks of issue 19 by a process on the same host as the services: it knows the .proto
// files and the ports, and calls the services' gRPC servers directly, bypassing the gateway. Each
// was possible before services authenticated each other; each must now be refused, and leave
// nothing changed. The attacker runs as the OS user `nobody` where this test runs as root (it
// cannot read the services' key files either); elsewhere as the test's own user.

const ATTACKER = path.join(__dirname, 'grpc-attacker.cjs');
const grpcAddresses = (): Record<string, string> => JSON.parse(process.env.COFFER_GRPC_ADDRESSES ?? '{}');

interface Call {
  service: string;
  method: string;
  type: string;
  request: Record<string, unknown>;
  metadata?: Record<string, string>;
  stream?: boolean;
}
interface Outcome {
  code: string;
  details?: string;
  answer?: unknown;
  chunks?: number;
}

/** A node binary and the repository, as `nobody` can run and read them (or null: run as self). */
function asNobody(): { node: string } | null {
  if (process.getuid?.() !== 0) return null;
  // The test's node may live in root's home, which nobody cannot enter: use a copy in /tmp.
  const node = path.join(os.tmpdir(), `coffer-attacker-node-${process.pid}`);
  if (!fs.existsSync(node)) {
    fs.copyFileSync(process.execPath, node);
    fs.chmodSync(node, 0o755);
  }
  const canRead = `require('fs').accessSync(${JSON.stringify(ATTACKER)}); require.resolve('@coffer/proto')`;
  try {
    execFileSync('runuser', ['-u', 'nobody', '--', node, '-e', canRead], { cwd: __dirname, stdio: 'ignore' });
    return { node };
  } catch {
    return null; // the checkout is not readable by nobody (e.g. under /root)
  }
}

let nobody: { node: string } | null = null;

/** Runs the calls from the attacker process; answers their outcomes in order. */
function attack(calls: Call[]): Outcome[] {
  const withAddresses = calls.map((c) => ({
    ...c,
    address: grpcAddresses()[c.service === 'health' ? 'auth' : c.service],
  }));
  const args = [ATTACKER, JSON.stringify(withAddresses)];
  const out = nobody
    ? execFileSync('runuser', ['-u', 'nobody', '--', nobody.node, ...args], { cwd: __dirname })
    : execFileSync(process.execPath, args, { cwd: __dirname });
  const { uid, outcomes } = JSON.parse(out.toString()) as { uid: number; outcomes: Outcome[] };
  expect(uid).toBe(
    nobody ? Number(execFileSync('id', ['-u', 'nobody']).toString().trim()) : process.getuid?.(),
  );
  return outcomes;
}

/**
 * A token as a compromised service would sign it: with that service's real private key (read by
 * this test, which runs as the stack's owner) for `audience`.
 */
async function tokenOf(service: string, audience: string): Promise<string> {
  const dir = path.join(process.env.COFFER_DATA_DIR!, 'service-keys');
  const key = createPrivateKey(fs.readFileSync(path.join(dir, `${service}.key`), 'utf8'));
  return new SignJWT({})
    .setProtectedHeader({ alg: 'EdDSA' })
    .setIssuer(service)
    .setSubject(service)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key);
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Lines a service logged, parsed. */
function logLines(service: string): Array<Record<string, unknown>> {
  const file = path.join(process.env.COFFER_LOG_DIR!, `${service}.log`);
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

let victim: TestUser;
let attacker: TestUser;

beforeAll(async () => {
  nobody = asNobody();
  [victim, attacker] = await Promise.all([newUser('victim'), newUser('attacker')]);
});

afterAll(() => {
  if (nobody) fs.rmSync(nobody.node, { force: true });
});

it('runs the attacker as another OS user where it can', () => {
  if (process.getuid?.() === 0 && !nobody)
    console.warn('the checkout is not readable by nobody: attacking as root');
  const [health] = attack([
    { service: 'health', method: 'check', type: 'HealthCheckRequest', request: { service: '' } },
  ]);
  // The health service stays open: probes carry no token.
  expect(health).toMatchObject({ code: 'OK', answer: { status: 'SERVING' } });
});

describe('auth', () => {
  it('AdminUpdateUser without credentials makes no account admin', async () => {
    const [outcome] = attack([
      {
        service: 'auth',
        method: 'adminUpdateUser',
        type: 'AdminUpdateUserRequest',
        request: { userId: attacker.id, role: 'ROLE_ADMIN' },
      },
    ]);
    expect(outcome).toMatchObject({ code: 'UNAUTHENTICATED' });
    const me = await api('GET', '/api/user/profile', { token: attacker.token });
    expect(me.body).toMatchObject({ email: attacker.email, role: 'user' });
  });

  it("GetProfile without credentials reads no user's API key", () => {
    const [outcome] = attack([
      { service: 'auth', method: 'getProfile', type: 'UserRef', request: { userId: victim.id } },
    ]);
    expect(outcome).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(JSON.stringify(outcome)).not.toContain(victim.apiKey);
  });

  it('a service that may call auth reads no API key and makes no admin', async () => {
    // notification may call auth, for an account's address only (GetAccountState).
    const token = await tokenOf('notification', 'auth');
    const [profile, admin] = attack([
      {
        service: 'auth',
        method: 'getProfile',
        type: 'UserRef',
        request: { userId: victim.id },
        metadata: bearer(token),
      },
      {
        service: 'auth',
        method: 'adminUpdateUser',
        type: 'AdminUpdateUserRequest',
        request: { userId: attacker.id, role: 'ROLE_ADMIN' },
        metadata: bearer(token),
      },
    ]);
    expect(profile).toEqual({
      code: 'PERMISSION_DENIED',
      details: 'auth does not take GetProfile calls from notification',
    });
    expect(admin).toMatchObject({ code: 'PERMISSION_DENIED' });
  });

  it("even the gateway's key acts as no admin without an admin's live session", async () => {
    // The gateway may call every method of auth; admin actions also need an admin's own session
    // token, which whoever stole the gateway's key does not have.
    const token = await tokenOf('gateway', 'auth');
    const request = { userId: attacker.id, role: 'ROLE_ADMIN' };
    const [bare, asUser] = attack([
      {
        service: 'auth',
        method: 'adminUpdateUser',
        type: 'AdminUpdateUserRequest',
        request,
        metadata: bearer(token),
      },
      {
        service: 'auth',
        method: 'adminUpdateUser',
        type: 'AdminUpdateUserRequest',
        request,
        metadata: { ...bearer(token), 'x-coffer-user-token': attacker.token },
      },
    ]);
    expect(bare).toMatchObject({
      code: 'UNAUTHENTICATED',
      details: 'Sign in as an administrator to do this',
    });
    expect(asUser).toMatchObject({ code: 'PERMISSION_DENIED', details: 'Admin access required' });
    const me = await api('GET', '/api/user/profile', { token: attacker.token });
    expect(me.body).toMatchObject({ role: 'user' });
  });

  it('logs each refusal with the method, and never the token', async () => {
    const token = await tokenOf('notification', 'storage');
    attack([
      {
        service: 'auth',
        method: 'getProfile',
        type: 'UserRef',
        request: { userId: victim.id },
        metadata: bearer(token.replace(/.$/, token.endsWith('A') ? 'B' : 'A')),
      },
    ]);
    await eventually(async () => {
      const refused = logLines('auth').filter(
        (l) => l.msg === 'call refused' && l.method === '/coffer.auth.v1.AuthService/GetProfile',
      );
      expect(refused.length).toBeGreaterThanOrEqual(2);
      expect(refused.at(-1)).toMatchObject({ caller: 'notification', grpcCode: 'UNAUTHENTICATED' });
    });
    expect(fs.readFileSync(path.join(process.env.COFFER_LOG_DIR!, 'auth.log'), 'utf8')).not.toContain(
      token.split('.')[1],
    );
  });
});

describe('storage', () => {
  it("Get without credentials streams no user's blob", () => {
    const [outcome] = attack([
      {
        service: 'storage',
        method: 'get',
        type: 'BlobRef',
        request: { userId: victim.id, blobId: '64b7f0c2a1b2c3d4e5f60718' },
        stream: true,
      },
    ]);
    expect(outcome).toEqual({ code: 'UNAUTHENTICATED', details: expect.any(String), chunks: 0 });
  });

  it('a valid token of a service that may not call storage (notification) is refused', async () => {
    const [outcome] = attack([
      {
        service: 'storage',
        method: 'get',
        type: 'BlobRef',
        request: { userId: victim.id, blobId: '64b7f0c2a1b2c3d4e5f60718' },
        metadata: bearer(await tokenOf('notification', 'storage')),
        stream: true,
      },
    ]);
    expect(outcome).toEqual({
      code: 'PERMISSION_DENIED',
      details: 'storage does not take calls from notification',
      chunks: 0,
    });
  });

  it('a gateway token meant for another service does not open storage', async () => {
    const [outcome] = attack([
      {
        service: 'storage',
        method: 'usage',
        type: 'UserRef',
        request: { userId: victim.id },
        metadata: bearer(await tokenOf('gateway', 'auth')),
      },
    ]);
    expect(outcome).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});

describe('backup-orchestrator', () => {
  it('RequestRestore without credentials starts no restore', async () => {
    const [outcome, stats] = attack([
      {
        service: 'backup-orchestrator',
        method: 'requestRestore',
        type: 'RequestRestoreRequest',
        request: { userId: victim.id, backupId: '64b7f0c2a1b2c3d4e5f60718', databaseName: 'shop' },
      },
      { service: 'backup-orchestrator', method: 'backupStats', type: 'Empty', request: {} },
    ]);
    expect(outcome).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(stats).toMatchObject({ code: 'UNAUTHENTICATED' });
    const restores = await api('GET', '/api/backups/restores/all', { token: victim.token });
    expect(restores.status).toBe(200);
    expect(restores.body).toEqual([]);
  });
});

describe('notification', () => {
  it("SendPasswordReset without credentials sends no mail with the attacker's link", async () => {
    const evil = 'https://evil.example/reset?token=phish';
    const [outcome] = attack([
      {
        service: 'notification',
        method: 'sendPasswordReset',
        type: 'PasswordResetMail',
        request: {
          userId: victim.id,
          email: victim.email,
          name: victim.name,
          resetUrl: evil,
          requestId: `attack-${Date.now()}`,
        },
      },
    ]);
    expect(outcome).toMatchObject({ code: 'UNAUTHENTICATED' });
    // A genuine reset, asked for through the gateway after the attack, still arrives; the
    // attacker's never did.
    const asked = await api('POST', '/api/auth/forgot-password', { body: { email: victim.email } });
    expect(asked.status).toBe(200);
    await waitForMail(victim.email, (m) => /reset/i.test(m.subject));
    const mails = await mailsTo(victim.email);
    expect(mails.some((m) => `${m.text}${m.html}`.includes('evil.example'))).toBe(false);
  });
});

describe('audit', () => {
  it("ListLogs without credentials reads no user's audit log", () => {
    const [outcome] = attack([
      {
        service: 'audit',
        method: 'listLogs',
        type: 'ListLogsRequest',
        request: { userId: victim.id, page: 1, pageSize: 10 },
      },
    ]);
    expect(outcome).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});

describe('kb', () => {
  it('CreateArticle without credentials writes no article', async () => {
    const slug = `attack-${Date.now()}`;
    const [outcome] = attack([
      {
        service: 'kb',
        method: 'createArticle',
        type: 'CreateArticleRequest',
        request: { title: 'Pwned', slug, content: 'x', isPublished: true },
      },
    ]);
    expect(outcome).toMatchObject({ code: 'UNAUTHENTICATED' });
    const res = await api('GET', `/api/kb/${slug}`);
    expect(res.status).toBe(404);
  });
});

describe('admin actions of the orchestrator and kb', () => {
  it("take the gateway's own key for no admin without an admin's live session", async () => {
    // Only the gateway may call either service; whoever stole its key still needs an admin's own
    // session token, which the orchestrator and kb have auth verify (VerifyAdmin).
    const [orchestratorToken, kbToken] = await Promise.all([
      tokenOf('gateway', 'backup-orchestrator'),
      tokenOf('gateway', 'kb'),
    ]);
    const agentId = '64b7f0c2a1b2c3d4e5f60719';
    const slug = `attack-${Date.now()}`;
    const article = { title: 'Pwned', slug, content: 'x', isPublished: true };
    const deleteAgent = (metadata: Record<string, string>): Call => ({
      service: 'backup-orchestrator',
      method: 'adminDeleteAgent',
      type: 'AdminDeleteAgentRequest',
      request: { agentId },
      metadata: { ...bearer(orchestratorToken), ...metadata },
    });
    const write = (metadata: Record<string, string>): Call => ({
      service: 'kb',
      method: 'createArticle',
      type: 'CreateArticleRequest',
      request: article,
      metadata: { ...bearer(kbToken), ...metadata },
    });
    const asUser = { 'x-coffer-user-token': attacker.token };
    const [bareDelete, userDelete, bareWrite, userWrite] = attack([
      deleteAgent({}),
      deleteAgent(asUser),
      write({}),
      write(asUser),
    ]);
    // Refused before the agent is even looked up (an unknown id would answer NOT_FOUND).
    expect(bareDelete).toMatchObject({
      code: 'UNAUTHENTICATED',
      details: 'Sign in as an administrator to do this',
    });
    expect(userDelete).toMatchObject({ code: 'PERMISSION_DENIED', details: 'Admin access required' });
    expect(bareWrite).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(userWrite).toMatchObject({ code: 'PERMISSION_DENIED', details: 'Admin access required' });
    expect((await api('GET', `/api/kb/${slug}`)).status).toBe(404);

    // The same calls with an admin's session act, for that admin: the services ask auth for real.
    const admin = await adminToken();
    const [adminDelete, adminWrite] = attack([
      deleteAgent({ 'x-coffer-user-token': admin.token }),
      write({ 'x-coffer-user-token': admin.token }),
    ]);
    expect(adminDelete).toMatchObject({ code: 'NOT_FOUND' });
    expect(adminWrite).toMatchObject({ code: 'OK', answer: { slug, author: { id: admin.id } } });
    const written = adminWrite!.answer as { id: string };
    expect((await api('DELETE', `/api/kb/${written.id}`, { token: admin.token })).status).toBe(200);
  });
});
