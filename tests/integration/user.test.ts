import { api, newUser, uniqueEmail } from './helpers';

describe('GET /api/user/profile', () => {
  it('needs a valid token', async () => {
    expect((await api('GET', '/api/user/profile')).status).toBe(401);
    expect((await api('GET', '/api/user/profile', { token: 'garbage' })).status).toBe(401);
    const forged = (await newUser()).token.replace(/\.[^.]+$/, '.c2lnbmF0dXJl');
    expect((await api('GET', '/api/user/profile', { token: forged })).status).toBe(401);
  });

  it("answers the caller's own profile", async () => {
    const u = await newUser();
    const res = await api('GET', '/api/user/profile', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      _id: u.id,
      name: u.name,
      email: u.email,
      plan: expect.stringMatching(/^[0-9a-f]{24}$/),
      storageUsed: 0,
      apiKey: u.apiKey,
      role: 'user',
    });
  });
});

describe('PUT /api/user/update', () => {
  it('validates its fields', async () => {
    const u = await newUser();
    expect((await api('PUT', '/api/user/update', { body: { name: 'Bob' } })).status).toBe(401);
    const bad = await api('PUT', '/api/user/update', { token: u.token, body: { email: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Please enter a valid email address');
    const op = await api('PUT', '/api/user/update', { token: u.token, body: { name: { $set: 'x' } } });
    expect(op.status).toBe(400);
  });

  it('changes name and e-mail; a taken e-mail is a 409', async () => {
    const u = await newUser();
    const other = await newUser();
    const email = uniqueEmail('renamed');
    const res = await api('PUT', '/api/user/update', {
      token: u.token,
      body: { name: 'Renamed', email, currentPassword: u.password },
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ name: 'Renamed', email });
    const clash = await api('PUT', '/api/user/update', {
      token: u.token,
      body: { email: other.email.toUpperCase(), currentPassword: u.password },
    });
    expect(clash.status).toBe(409);
    expect(clash.body.message).toBe('An account with this email already exists');
    expect((await api('POST', '/api/auth/login', { body: { email, password: u.password } })).status).toBe(
      200,
    );
  });
});

describe('PUT /api/user/password', () => {
  it('needs the current password', async () => {
    const u = await newUser();
    expect((await api('PUT', '/api/user/password', { body: {} })).status).toBe(401);
    const wrong = await api('PUT', '/api/user/password', {
      token: u.token,
      body: { currentPassword: 'not-it', newPassword: 'another-1' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('Current password is incorrect');
    const short = await api('PUT', '/api/user/password', {
      token: u.token,
      body: { currentPassword: u.password, newPassword: '123' },
    });
    expect(short.status).toBe(400);
    expect(short.body.message).toBe('Password must be at least 6 characters');
  });

  it('changes the password', async () => {
    const u = await newUser();
    const res = await api('PUT', '/api/user/password', {
      token: u.token,
      body: { currentPassword: u.password, newPassword: 'another-1' },
    });
    expect(res.status).toBe(200);
    expect(
      (await api('POST', '/api/auth/login', { body: { email: u.email, password: 'another-1' } })).status,
    ).toBe(200);
    expect(
      (await api('POST', '/api/auth/login', { body: { email: u.email, password: u.password } })).status,
    ).toBe(401);
  });
});

describe('/api/user/plan', () => {
  it('reads the plan and switches only to free plans', async () => {
    const u = await newUser();
    expect((await api('GET', '/api/user/plan')).status).toBe(401);
    const plan = await api('GET', '/api/user/plan', { token: u.token });
    expect(plan.status).toBe(200);
    expect(plan.body).toMatchObject({ name: 'Free', price: 0 });

    const plans = (await api('GET', '/api/settings/plans')).body as Array<{ _id: string; price: number }>;
    const paid = plans.find((p) => p.price > 0)!;
    const refused = await api('PUT', '/api/user/plan', { token: u.token, body: { plan: paid._id } });
    // The shared test stack has no payment provider: the answer says so and who can help.
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: 'BILLING_NOT_CONFIGURED',
      message:
        'Billing is not set up on this server, so paid plans cannot be bought here. An administrator can change your plan in the admin console.',
    });

    const bad = await api('PUT', '/api/user/plan', { token: u.token, body: { plan: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Invalid plan id');
    const missing = await api('PUT', '/api/user/plan', { token: u.token, body: { plan: 'a'.repeat(24) } });
    expect(missing.status).toBe(404);

    const free = plans.find((p) => p.price === 0)!;
    const ok = await api('PUT', '/api/user/plan', { token: u.token, body: { plan: free._id } });
    expect(ok.status).toBe(200);
    expect(ok.body.plan._id).toBe(free._id);
    expect(ok.body.changes).toEqual([]);
  });
});
