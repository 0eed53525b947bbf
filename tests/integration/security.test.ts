// Defects found by trying the local run as an attacker would (issue 15, "Found already"): each
// test here failed before its fix.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { natsConnectOptions } from '@coffer/common';
import { api, adminToken, eventually, mailsTo, newUser, randomIp, uniqueEmail, waitForMail } from './helpers';
import { customerDbForFile, setupAgent, uniqueName, waitAgentActive, type Agent } from './pipeline/harness';

jest.setTimeout(120_000);

const resetToken = (text: string) => /\/reset-password\/([A-Za-z0-9_-]+)/.exec(text)?.[1];

describe('NATS', () => {
  it('refuses a connection without credentials', async () => {
    const { servers } = natsConnectOptions(process.env.COFFER_NATS_URL!);
    await expect(connect({ servers, maxReconnectAttempts: 0, reconnect: false })).rejects.toThrow(
      /Authorization/i,
    );
  });

  describe('a password reset', () => {
    let nats: NatsConnection;
    const seen: string[] = [];
    beforeAll(async () => {
      nats = await connect(natsConnectOptions(process.env.COFFER_NATS_URL!));
      nats.subscribe('>', {
        callback: (_e, m) => {
          seen.push(m.string());
        },
      });
      await nats.flush();
    });
    afterAll(() => nats?.close());

    it('mails the link but never puts it on NATS; the event only says a reset was requested', async () => {
      const u = await newUser('reset-nats');
      expect((await api('POST', '/api/auth/forgot-password', { body: { email: u.email } })).status).toBe(200);
      const mail = await waitForMail(u.email, (m) => /reset-password/.test(m.text));
      const token = resetToken(mail.text)!;
      expect(token).toBeDefined();
      await nats.flush();
      const event = seen.find((s) => s.includes('"auth.user.reset_requested"') && s.includes(u.id));
      expect(event).toBeDefined();
      expect(JSON.parse(event!).data).toEqual({ userId: u.id });
      expect(seen.join('\n')).not.toContain(token);
    });
  });
});

describe('password recovery', () => {
  it('voids the other pending reset links once one is used', async () => {
    const u = await newUser('reset-two');
    await api('POST', '/api/auth/forgot-password', { body: { email: u.email } });
    const first = resetToken((await waitForMail(u.email, (m) => /reset-password/.test(m.text))).text)!;
    await api('POST', '/api/auth/forgot-password', { body: { email: u.email } });
    const second = await (async () => {
      for (;;) {
        const tokens = (await mailsTo(u.email)).map((m) => resetToken(m.text)).filter(Boolean);
        const other = tokens.find((t) => t !== first);
        if (other) return other;
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const done = await api('POST', `/api/auth/reset-password/${second}`, {
      body: { password: 'brand-new-1' },
    });
    expect(done.status).toBe(200);
    const stale = await api('GET', `/api/auth/reset-password/${first}`);
    expect(stale.status).toBe(400);
    expect(stale.body.message).toBe('Invalid or expired reset token');
  });
});

describe('PUT /api/user/password', () => {
  it('ends every other session and hands the caller a fresh token', async () => {
    const u = await newUser('pw-sessions');
    const other = await api('POST', '/api/auth/login', { body: { email: u.email, password: u.password } });
    expect(other.status).toBe(200);

    const res = await api('PUT', '/api/user/password', {
      token: u.token,
      body: { currentPassword: u.password, newPassword: 'another-pass-1' },
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Password updated successfully');
    // Stolen or forgotten elsewhere: both earlier tokens are over, on every gateway.
    for (const gw of process.env.COFFER_GATEWAY_URLS!.split(',')) {
      for (const token of [other.body.token, u.token]) {
        const r = await fetch(`${gw}/api/user/profile`, { headers: { authorization: `Bearer ${token}` } });
        expect(r.status).toBe(401);
      }
    }
    const fresh = await api('GET', '/api/user/profile', { token: res.body.token });
    expect(fresh.status).toBe(200);
    expect(fresh.body.email).toBe(u.email);
  });

  it('limits current-password guesses per account, whatever the address', async () => {
    const u = await newUser('pw-guess');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push(
        (
          await api('PUT', '/api/user/password', {
            token: u.token,
            body: { currentPassword: `guess-${i}-x`, newPassword: 'another-pass-1' },
          })
        ).status,
      );
    }
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
    expect(statuses[10]).toBe(429);
    const right = await api('PUT', '/api/user/password', {
      token: u.token,
      body: { currentPassword: u.password, newPassword: 'another-pass-1' },
    });
    expect(right.status).toBe(429);
    expect(right.body.message).toBe('Too many password attempts. Please wait a few minutes and try again.');
  });
});

describe('PUT /api/user/update (e-mail)', () => {
  it('needs the current password to change the e-mail, and tells the previous address', async () => {
    const u = await newUser('email-change');
    const next = uniqueEmail('email-next');
    const missing = await api('PUT', '/api/user/update', { token: u.token, body: { email: next } });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('Current password is required to change your email');
    const wrong = await api('PUT', '/api/user/update', {
      token: u.token,
      body: { email: next, currentPassword: 'not-it-1' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('Current password is incorrect');
    // The name alone needs no password.
    expect((await api('PUT', '/api/user/update', { token: u.token, body: { name: 'Ada B' } })).status).toBe(
      200,
    );

    const ok = await api('PUT', '/api/user/update', {
      token: u.token,
      body: { email: next, currentPassword: u.password },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.user.email).toBe(next);
    const notice = await waitForMail(u.email, (m) => m.subject === 'Your Coffer account email was changed');
    expect(notice.text).toContain(next);
  });
});

describe('answers carrying a token or the API key', () => {
  it('tell caches not to keep them', async () => {
    const u = await newUser('no-store');
    const login = await fetch(`${process.env.COFFER_BASE_URL}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': randomIp() },
      body: JSON.stringify({ email: u.email, password: u.password }),
    });
    expect(login.headers.get('cache-control')).toBe('no-store');
    const profile = await fetch(`${process.env.COFFER_BASE_URL}/api/user/profile`, {
      headers: { authorization: `Bearer ${u.token}` },
    });
    expect(profile.headers.get('cache-control')).toBe('no-store');
    const regenerated = await fetch(`${process.env.COFFER_BASE_URL}/api/settings/regenerate-api-key`, {
      method: 'POST',
      headers: { authorization: `Bearer ${u.token}` },
    });
    expect(regenerated.status).toBe(200);
    expect(regenerated.headers.get('cache-control')).toBe('no-store');
  });
});

describe('names', () => {
  it('refuse NUL and right-to-left overrides, with a message saying so', async () => {
    for (const name of ['Ada\u0000Lovelace', 'Ada \u202Eecalevol']) {
      const res = await api('POST', '/api/auth/register', {
        ip: randomIp(),
        body: { name, email: uniqueEmail('bidi'), password: 'secret-1' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        field: 'name',
        message: 'Name must not contain control characters or text-direction overrides',
      });
    }
  });
});

describe('the content security policy', () => {
  it('lets the web app connect to its own origin only (no WebSocket to another host)', async () => {
    const res = await fetch(`${process.env.COFFER_BASE_URL}/`);
    const csp = res.headers.get('content-security-policy') ?? '';
    const connect = csp
      .split(';')
      .map((d) => d.trim())
      .find((d) => d.startsWith('connect-src'));
    expect(connect).toBe("connect-src 'self'");
  });
});

describe('an account an admin set inactive', () => {
  it('cannot sign in, its sessions are refused, and it works again once reactivated', async () => {
    const u = await newUser('inactive');
    const admin = await adminToken();
    const set = (status: 'active' | 'inactive') =>
      api('PUT', `/api/admin/users/${u.id}`, { token: admin.token, body: { status } });
    expect((await set('inactive')).status).toBe(200);
    const message = 'This account is inactive. Contact support to have it reactivated.';
    const login = await api('POST', '/api/auth/login', {
      ip: randomIp(),
      body: { email: u.email, password: u.password },
    });
    expect(login.status).toBe(403);
    expect(login.body).toMatchObject({ code: 'ACCOUNT_INACTIVE', message });
    // The session it had before is refused too (the gateway's account cache lasts a few seconds).
    const profile = await eventually(async () => {
      const r = await api('GET', '/api/user/profile', { token: u.token });
      if (r.status !== 403) throw new Error(`still ${r.status}`);
      return r;
    });
    expect(profile.body).toMatchObject({ code: 'ACCOUNT_INACTIVE', message });
    expect((await set('active')).status).toBe(200);
    const again = await api('POST', '/api/auth/login', {
      ip: randomIp(),
      body: { email: u.email, password: u.password },
    });
    expect(again.status).toBe(200);
  });
});

describe('POST /api/auth/register', () => {
  it('is throttled per client address', async () => {
    const ip = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push(
        (
          await api('POST', '/api/auth/register', {
            ip,
            body: { name: 'Mass Signup', email: uniqueEmail('mass'), password: 'secret-1' },
          })
        ).status,
      );
    }
    expect(statuses.slice(0, 10).every((s) => s === 201)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});

describe("a connected agent when its owner's access ends", () => {
  const customer = customerDbForFile();

  const closedByServer = (agent: Agent) =>
    agent.waitForLog((l) => l.msg === 'disconnected' && l.reason === 'io server disconnect', 15_000);

  it('is disconnected at once when the owner is banned, and its reconnect is refused', async () => {
    const owner = await newUser('ban-agent');
    const agent = await setupAgent(owner, [{ label: 'ban-db', uri: customer().uri(uniqueName('ban_')) }]);
    await waitAgentActive(owner.token, agent.name);
    const admin = await adminToken();
    const ban = await api('PUT', `/api/admin/users/${owner.id}/ban`, {
      token: admin.token,
      body: { isBanned: true, banReason: 'abuse' },
    });
    expect(ban.status).toBe(200);
    await closedByServer(agent);
    const refused = await agent.waitForLog((l) => l.msg === 'the server refused the connection');
    expect(refused).toMatchObject({ error: 'Your account has been suspended' });
  });

  it('is disconnected at once when the owner is set inactive, and its reconnect is refused', async () => {
    const owner = await newUser('inactive-agent');
    const agent = await setupAgent(owner, [{ label: 'idle-db', uri: customer().uri(uniqueName('idle_')) }]);
    await waitAgentActive(owner.token, agent.name);
    const admin = await adminToken();
    const set = await api('PUT', `/api/admin/users/${owner.id}`, {
      token: admin.token,
      body: { status: 'inactive' },
    });
    expect(set.status).toBe(200);
    await closedByServer(agent);
    const refused = await agent.waitForLog((l) => l.msg === 'the server refused the connection');
    expect(refused).toMatchObject({
      error: 'This account is inactive. Contact support to have it reactivated.',
      advice: expect.stringMatching(/inactive/),
    });
  });

  it('is disconnected at once when the owner is deleted', async () => {
    const owner = await newUser('del-agent');
    const agent = await setupAgent(owner, [{ label: 'del-db', uri: customer().uri(uniqueName('del_')) }]);
    await waitAgentActive(owner.token, agent.name);
    const admin = await adminToken();
    const del = await api('DELETE', `/api/admin/users/${owner.id}`, { token: admin.token });
    expect(del.status).toBe(200);
    await closedByServer(agent);
  });
});
