import { api, newUser, randomIp, uniqueEmail, waitForMail, mailsTo } from './helpers';

describe('POST /api/auth/register', () => {
  it('creates an account on the Free plan and signs it in', async () => {
    const email = uniqueEmail();
    const res = await api('POST', '/api/auth/register', {
      body: { name: 'Ada', email, password: 'secret-1' },
    });
    expect(res.status).toBe(201);
    expect(res.body.token).toEqual(expect.any(String));
    expect(res.body.user).toMatchObject({
      email,
      name: 'Ada',
      role: 'user',
      isBanned: false,
      banReason: null,
    });
    expect(res.body.user.apiKey).toMatch(/^cof_/);
    const profile = await api('GET', '/api/user/profile', { token: res.body.token });
    const plans = await api('GET', '/api/settings/plans');
    const free = plans.body.find((p) => p.price === 0);
    expect(profile.body.plan).toBe(free?._id);
  });

  it.each([
    [{ email: uniqueEmail(), password: 'secret-1', name: 'A' }, 'Name must be at least 2 characters'],
    [{ email: 'not-an-email', password: 'secret-1', name: 'Ada' }, 'Please enter a valid email address'],
    [{ email: uniqueEmail(), password: '123', name: 'Ada' }, 'Password must be at least 6 characters'],
    [{ email: { $gt: '' }, password: 'secret-1', name: 'Ada' }, 'Please enter a valid email address'],
    [
      { email: uniqueEmail(), password: 'secret-1', name: 'x'.repeat(5000) },
      'Name must be at most 100 characters',
    ],
    [{ email: uniqueEmail(), password: ['a'], name: 'Ada' }, 'Password must be at least 6 characters'],
  ])('refuses bad input %# with 400 and a message', async (body, message) => {
    const res = await api('POST', '/api/auth/register', { body });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  it('treats e-mails case-insensitively: a clash is a 409 with a message', async () => {
    const email = uniqueEmail();
    await api('POST', '/api/auth/register', { body: { name: 'Ada', email, password: 'secret-1' } });
    const res = await api('POST', '/api/auth/register', {
      body: { name: 'Ada', email: `  ${email.toUpperCase()} `, password: 'secret-1' },
    });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe('An account with this email already exists');
  });

  it('answers malformed JSON and non-object bodies with 400, never 500', async () => {
    const broken = await api('POST', '/api/auth/register', { rawBody: '{"name": "Ada",' });
    expect(broken.status).toBe(400);
    expect(broken.body.message).toBe('Malformed JSON body');
    const scalar = await api('POST', '/api/auth/register', { rawBody: '"just a string"' });
    expect(scalar.status).toBe(400);
    const huge = await api('POST', '/api/auth/register', {
      body: { name: 'Ada', email: uniqueEmail(), password: 'x'.repeat(200_000) },
    });
    expect(huge.status).toBe(413);
    expect(huge.body.message).toBe('Request body is too large');
  });
});

describe('POST /api/auth/login', () => {
  it('signs in with the right password, case-insensitive e-mail', async () => {
    const u = await newUser();
    const res = await api('POST', '/api/auth/login', {
      body: { email: u.email.toUpperCase(), password: u.password },
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: u.id, email: u.email, isBanned: false, bannedAt: null });
    expect(res.body.token).toEqual(expect.any(String));
  });

  it('refuses a wrong password and an unknown e-mail alike with 401', async () => {
    const u = await newUser();
    const wrong = await api('POST', '/api/auth/login', {
      body: { email: u.email, password: 'wrong-password' },
    });
    const unknown = await api('POST', '/api/auth/login', {
      body: { email: uniqueEmail(), password: 'whatever' },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.message).toBe('Invalid email or password');
    expect(unknown.body.message).toBe(wrong.body.message);
  });

  it('refuses operator objects and bad e-mails with 400', async () => {
    const res = await api('POST', '/api/auth/login', {
      body: { email: { $ne: null }, password: { $ne: null } },
    });
    expect(res.status).toBe(400);
    const bad = await api('POST', '/api/auth/login', { body: { email: 'nope', password: 'secret-1' } });
    expect(bad.body.message).toBe('Please enter a valid email address');
  });

  it("rate-limits an e-mail per client address: a stranger's attempts do not lock the owner out", async () => {
    const u = await newUser();
    const attacker = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push(
        (
          await api('POST', '/api/auth/login', {
            ip: attacker,
            body: { email: u.email, password: 'bad-pass' },
          })
        ).status,
      );
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
    const limited = await api('POST', '/api/auth/login', {
      ip: attacker,
      body: { email: u.email, password: u.password },
    });
    expect(limited.status).toBe(429);
    expect(limited.body.message).toMatch(/Too many sign-in attempts/);
    // Every 429 says when to come back, in the header clients and proxies read.
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBe(Math.ceil(limited.body.retryAfter!));
    // The owner, from their own address, still signs in.
    const owner = await api('POST', '/api/auth/login', { body: { email: u.email, password: u.password } });
    expect(owner.status).toBe(200);
  });

  it('rate-limits per client address across e-mails', async () => {
    const ip = randomIp();
    let last = 0;
    let retryAfter: string | null = null;
    for (let i = 0; i < 31; i++) {
      const res = await api('POST', '/api/auth/login', {
        ip,
        body: { email: uniqueEmail(), password: 'bad-pass' },
      });
      [last, retryAfter] = [res.status, res.headers.get('retry-after')];
    }
    expect(last).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    const other = await api('POST', '/api/auth/login', {
      body: { email: uniqueEmail(), password: 'bad-pass' },
    });
    expect(other.status).toBe(401);
  });
});

describe('sign-in limits count failures only', () => {
  it('lets an office behind one address sign in far more often than the failure limit', async () => {
    // RATE_LOGIN_PER_IP (30) and RATE_LOGIN_PER_EMAIL (10) failures would lock this address out.
    const office = randomIp();
    const colleagues = await Promise.all([newUser(), newUser()]);
    for (let i = 0; i < 40; i++) {
      const u = colleagues[i % 2]!;
      const res = await api('POST', '/api/auth/login', {
        ip: office,
        body: { email: u.email, password: u.password },
      });
      expect(res.status).toBe(200);
    }
    // A mistyped password still counts (and is answered as one).
    const typo = await api('POST', '/api/auth/login', {
      ip: office,
      body: { email: colleagues[0]!.email, password: 'typo-pass' },
    });
    expect(typo.status).toBe(401);
  });

  it('still stops guessing after the per-e-mail failures, whatever successes came between', async () => {
    const u = await newUser();
    const ip = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      statuses.push(
        (await api('POST', '/api/auth/login', { ip, body: { email: u.email, password: u.password } })).status,
      );
      statuses.push(
        (await api('POST', '/api/auth/login', { ip, body: { email: u.email, password: 'bad-pass' } })).status,
      );
    }
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    const over = await api('POST', '/api/auth/login', { ip, body: { email: u.email, password: 'bad-pass' } });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('password recovery', () => {
  const resetLink = (text: string) => /\/reset-password\/([A-Za-z0-9_-]+)/.exec(text)?.[1];

  it('mails a single-use link that sets a new password and ends old sessions', async () => {
    const u = await newUser();
    const res = await api('POST', '/api/auth/forgot-password', { body: { email: u.email } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'If an account with that email exists, a password reset link has been sent.',
    });

    const mail = await waitForMail(u.email, (m) => /reset-password/.test(m.text));
    const token = resetLink(mail.text);
    expect(token).toBeDefined();

    expect((await api('GET', `/api/auth/reset-password/${token}`)).body).toMatchObject({ valid: true });
    const short = await api('POST', `/api/auth/reset-password/${token}`, { body: { password: '123' } });
    expect(short.status).toBe(400);
    expect(short.body.message).toBe('Password must be at least 6 characters');

    const done = await api('POST', `/api/auth/reset-password/${token}`, {
      body: { password: 'brand-new-pass' },
    });
    expect(done.status).toBe(200);
    expect(done.body.message).toBe('Password has been reset successfully');

    const again = await api('POST', `/api/auth/reset-password/${token}`, {
      body: { password: 'another-pass' },
    });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('Invalid or expired reset token');

    expect(
      (await api('POST', '/api/auth/login', { body: { email: u.email, password: u.password } })).status,
    ).toBe(401);
    expect(
      (await api('POST', '/api/auth/login', { body: { email: u.email, password: 'brand-new-pass' } })).status,
    ).toBe(200);
    // The session from before the reset is over.
    expect((await api('GET', '/api/user/profile', { token: u.token })).status).toBe(401);
  });

  it('answers the same for an unknown e-mail and sends nothing', async () => {
    const email = uniqueEmail('nobody');
    const res = await api('POST', '/api/auth/forgot-password', { body: { email } });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(
      'If an account with that email exists, a password reset link has been sent.',
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(await mailsTo(email)).toHaveLength(0);
  });

  it('refuses made-up tokens and bad e-mails', async () => {
    const bogus = await api('GET', '/api/auth/reset-password/not-a-real-token');
    expect(bogus.status).toBe(400);
    expect(bogus.body.message).toBe('Invalid or expired reset token');
    const bad = await api('POST', '/api/auth/forgot-password', { body: { email: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Please enter a valid email address');
  });

  it('rate-limits reset requests per e-mail', async () => {
    const u = await newUser();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await api('POST', '/api/auth/forgot-password', { body: { email: u.email } })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const again = await api('POST', '/api/auth/forgot-password', { body: { email: u.email } });
    expect(again.status).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
