// Sessions end where they should (issue 19), on the shared stack (each case bans, deactivates or
// deletes only a user of its own): signing out ends the session on the server, and a ban, an
// inactivation, a deletion or a password change ends what they end on every gateway: the REST API
// refuses the old token and the sockets opened with it (browsers') or with the owner's key
// (agents', on a ban) are closed and refused on reconnect. A browser socket closes when its token
// expires; a token without an expiry or a session id is refused.
import crypto from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import { AGENT_NAMESPACE, SOCKET_IO_PATH, type RegisteredMessage } from '@coffer/contracts';
import { TEST_SECRETS } from '@coffer/local-stack';
import { adminToken, api, eventually, newUser, waitForMail, type TestUser } from './helpers';

jest.setTimeout(90_000);

const gateways = () => (process.env.COFFER_GATEWAY_URLS ?? process.env.COFFER_BASE_URL ?? '').split(',');
/** Generous: the other gateway learns of a sign-out when its cached state expires (a few seconds). */
const WITHIN_MS = 20_000;

/** Resolves on the server's closing the socket; rejects on any other end, or after WITHIN_MS. */
function closedByServer(s: Socket): Promise<void> {
  const closed = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not close the socket')), WITHIN_MS);
    s.once('disconnect', (reason) => {
      clearTimeout(timer);
      if (reason === 'io server disconnect') resolve();
      else reject(new Error(`the socket ended otherwise: ${reason}`));
    });
  });
  // A case that fails before awaiting it leaves the socket to afterAll's close: that rejection is
  // the case's failure, already reported, never an unhandled one that ends the whole run.
  closed.catch(() => undefined);
  return closed;
}

function open(url: string, auth: object): Socket {
  return io(url, { path: SOCKET_IO_PATH, auth, transports: ['websocket'], reconnection: false });
}

/** A browser's socket, connected; rejects with the server's refusal. */
function browser(url: string, token: string): Promise<Socket> {
  const s = open(url, { token });
  return new Promise((resolve, reject) => {
    s.once('connect', () => resolve(s));
    s.once('connect_error', (err) => {
      s.close();
      reject(err);
    });
  });
}

/** An agent's socket on the agents' namespace, registered with the owner's API key. */
function agent(url: string, apiKey: string): Promise<Socket> {
  const s = open(`${url}${AGENT_NAMESPACE}`, {
    apiKey,
    instanceId: `sessions-${crypto.randomBytes(6).toString('hex')}`,
    name: 'sessions test agent',
    databases: ['sessions_db'],
  });
  return new Promise((resolve, reject) => {
    s.once('registered', (_m: RegisteredMessage) => resolve(s));
    s.once('connect_error', (err) => {
      s.close();
      reject(err);
    });
  });
}

/** A token signed with the stack's secret, with exactly the given claims. */
function forged(claims: object): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  const sig = crypto.createHmac('sha256', TEST_SECRETS.jwtSecret).update(body).digest('base64url');
  return `${body}.${sig}`;
}

const profileStatus = async (url: string, token: string) =>
  (
    await fetch(`${url}/api/user/profile`, { headers: { authorization: `Bearer ${token}` } }).then(
      async (r) => ({ status: r.status, body: (await r.json()) as { code?: string; message?: string } }),
    )
  ).status;

/** Every gateway answers the token with `status` (each within its cache time). */
const everyGatewayAnswers = (token: string, status: number) =>
  eventually(async () => {
    for (const g of gateways()) expect(await profileStatus(g, token)).toBe(status);
  }, WITHIN_MS);

const opened: Socket[] = [];
afterAll(() => {
  for (const s of opened) s.close();
});
const keep = <T extends Socket>(s: T) => (opened.push(s), s);

async function signIn(user: TestUser): Promise<string> {
  const res = await api('POST', '/api/auth/login', { body: { email: user.email, password: user.password } });
  expect(res.status).toBe(200);
  return res.body.token;
}

describe('Log out', () => {
  it("ends this session on every gateway: its token is refused, its sockets close and cannot reopen; the user's other sessions go on", async () => {
    const user = await newUser('logout');
    const other = await signIn(user);
    const [g1, g2] = gateways();
    const on1 = keep(await browser(g1!, user.token));
    const on2 = keep(await browser(g2!, user.token));
    const otherOn2 = keep(await browser(g2!, other));
    const closed = [closedByServer(on1), closedByServer(on2)];

    const res = await fetch(`${g1}/api/auth/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: 'Logged out' });

    await Promise.all(closed);
    // The gateway that signed out refuses at once; the other within its cache time.
    expect(await profileStatus(g1!, user.token)).toBe(401);
    await everyGatewayAnswers(user.token, 401);
    await eventually(async () => {
      for (const g of [g1!, g2!])
        await expect(browser(g, user.token)).rejects.toMatchObject({ message: 'Session expired' });
    }, WITHIN_MS);
    // Signing out once more with the ended session is refused like any ended token.
    expect((await api('POST', '/api/auth/logout', { token: user.token })).status).toBe(401);

    expect(otherOn2.connected).toBe(true);
    await everyGatewayAnswers(other, 200);
  });

  it('is allowed to a banned account, whose token then stays refused after an unban', async () => {
    const user = await newUser('logout-banned');
    const admin = await adminToken();
    const ban = (isBanned: boolean) =>
      api('PUT', `/api/admin/users/${user.id}/ban`, { token: admin.token, body: { isBanned } });
    expect((await ban(true)).status).toBe(200);
    expect((await api('POST', '/api/auth/logout', { token: user.token })).status).toBe(200);
    expect((await ban(false)).status).toBe(200);
    await everyGatewayAnswers(user.token, 401);
  });
});

describe('tokens', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it('are refused without an expiry, though signed with the right secret', async () => {
    const user = await newUser('no-exp');
    const token = forged({ sub: user.id, role: 'user', sv: 0, sid: 'forever', iat: now() });
    for (const g of gateways()) {
      expect(await profileStatus(g, token)).toBe(401);
      await expect(browser(g, token)).rejects.toMatchObject({ message: 'Invalid or expired token' });
    }
  });

  it('are refused without a session id (tokens issued before sessions had one)', async () => {
    const user = await newUser('no-sid');
    const token = forged({ sub: user.id, role: 'user', sv: 0, iat: now(), exp: now() + 3600 });
    for (const g of gateways()) expect(await profileStatus(g, token)).toBe(401);
    // The same claims with a session id pass: the refusal above is the missing id's.
    const good = forged({ sub: user.id, role: 'user', sv: 0, sid: 'x', iat: now(), exp: now() + 3600 });
    for (const g of gateways()) expect(await profileStatus(g, good)).toBe(200);
  });
});

describe('a browser socket', () => {
  it('closes when the token it was opened with expires', async () => {
    const user = await newUser('socket-expiry');
    const now = Math.floor(Date.now() / 1000);
    // What auth issues, but living 5 s.
    const token = forged({ sub: user.id, role: 'user', sv: 0, sid: 'short', iat: now, exp: now + 5 });
    const s = keep(await browser(gateways()[0]!, token));
    await closedByServer(s);
    await expect(browser(gateways()[0]!, token)).rejects.toMatchObject({
      message: 'Invalid or expired token',
    });
  });
});

describe('a ban', () => {
  it("refuses the user's token and closes their browsers' and agents' sockets on every gateway; reconnects are refused", async () => {
    const user = await newUser('ban-sockets');
    const [g1, g2] = gateways();
    const sockets = [
      keep(await browser(g1!, user.token)),
      keep(await browser(g2!, user.token)),
      keep(await agent(g1!, user.apiKey)),
      keep(await agent(g2!, user.apiKey)),
    ];
    const closed = sockets.map(closedByServer);
    const admin = await adminToken();
    const ban = await api('PUT', `/api/admin/users/${user.id}/ban`, {
      token: admin.token,
      body: { isBanned: true, banReason: 'sessions test' },
    });
    expect(ban.status).toBe(200);

    await Promise.all(closed);
    await everyGatewayAnswers(user.token, 403);
    for (const g of [g1!, g2!]) {
      await expect(browser(g, user.token)).rejects.toMatchObject({
        message: 'Your account has been suspended',
      });
      await expect(agent(g, user.apiKey)).rejects.toMatchObject({ data: { code: 'ACCOUNT_SUSPENDED' } });
    }
  });
});

describe('an inactivation and a deletion', () => {
  it("close the user's browser sockets on every gateway", async () => {
    const admin = await adminToken();
    const [g1, g2] = gateways();
    for (const end of [
      (id: string) =>
        api('PUT', `/api/admin/users/${id}`, { token: admin.token, body: { status: 'inactive' } }),
      (id: string) => api('DELETE', `/api/admin/users/${id}`, { token: admin.token }),
    ]) {
      const user = await newUser('ended-sockets');
      const closed = [keep(await browser(g1!, user.token)), keep(await browser(g2!, user.token))].map(
        closedByServer,
      );
      expect((await end(user.id)).status).toBe(200);
      await Promise.all(closed);
    }
  });
});

describe('a password change', () => {
  it('refuses the old token and closes the sockets opened with it on every gateway; the new token goes on', async () => {
    const user = await newUser('password-sockets');
    const elsewhere = await signIn(user);
    const [g1, g2] = gateways();
    const old = [
      keep(await browser(g1!, user.token)),
      keep(await browser(g2!, user.token)),
      keep(await browser(g2!, elsewhere)),
    ];
    const closed = old.map(closedByServer);

    const res = await api('PUT', '/api/user/password', {
      token: user.token,
      body: { currentPassword: user.password, newPassword: 'another-horse-2' },
    });
    expect(res.status).toBe(200);
    const renewed = keep(await browser(g1!, res.body.token));

    await Promise.all(closed);
    await everyGatewayAnswers(user.token, 401);
    await everyGatewayAnswers(elsewhere, 401);
    for (const g of [g1!, g2!])
      await expect(browser(g, elsewhere)).rejects.toMatchObject({ message: 'Session expired' });
    // The socket the changing browser reopened with its new token is a session the change admits.
    expect(renewed.connected).toBe(true);
    await everyGatewayAnswers(res.body.token, 200);
  });

  it('by reset link closes the sockets of every session from before it', async () => {
    const user = await newUser('reset-sockets');
    const [g1, g2] = gateways();
    const closed = [keep(await browser(g1!, user.token)), keep(await browser(g2!, user.token))].map(
      closedByServer,
    );
    expect((await api('POST', '/api/auth/forgot-password', { body: { email: user.email } })).status).toBe(
      200,
    );
    const mail = await waitForMail(user.email, (m) => /reset-password/.test(m.text));
    const link = /\/reset-password\/([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
    const reset = await api('POST', `/api/auth/reset-password/${link}`, {
      body: { password: 'another-horse-2' },
    });
    expect(reset.status).toBe(200);
    await Promise.all(closed);
    await everyGatewayAnswers(user.token, 401);
  });
});
