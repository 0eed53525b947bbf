import { adminToken, api, newUser, planId } from './helpers';

describe('admin user management', () => {
  it('is for admins only', async () => {
    const u = await newUser();
    expect((await api('GET', '/api/admin/users')).status).toBe(401);
    for (const [method, path] of [
      ['GET', '/api/admin/users'],
      ['GET', '/api/admin/plans'],
      ['PUT', `/api/admin/users/${u.id}`],
      ['PUT', `/api/admin/users/${u.id}/ban`],
      ['DELETE', `/api/admin/users/${u.id}`],
    ]) {
      const res = await api(method!, path!, {
        token: u.token,
        body: method === 'GET' ? undefined : { isBanned: true },
      });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('Admin access required');
    }
  });

  it('lists users and plans', async () => {
    const admin = await adminToken();
    const u = await newUser();
    const users = await api('GET', '/api/admin/users', { token: admin.token });
    expect(users.status).toBe(200);
    const row = users.body.find((x: { _id: string }) => x._id === u.id);
    expect(row).toMatchObject({ email: u.email, role: 'user', status: 'active', isBanned: false });
    expect(row).not.toHaveProperty('passwordHash');
    expect(row).not.toHaveProperty('apiKey');
    expect((await api('GET', '/api/admin/plans', { token: admin.token })).body).toHaveLength(4);
  });

  it('bans with the default reason; the banned user gets 403 with the ban details; unban restores access', async () => {
    const admin = await adminToken();
    const u = await newUser();
    const ban = await api('PUT', `/api/admin/users/${u.id}/ban`, {
      token: admin.token,
      body: { isBanned: true, banReason: '   ' },
    });
    expect(ban.status).toBe(200);
    expect(ban.body).toEqual({ isBanned: true, banReason: 'Policy violation', bannedAt: expect.any(String) });

    const refused = await api('GET', '/api/user/profile', { token: u.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: 'ACCOUNT_BANNED',
      isBanned: true,
      banReason: 'Policy violation',
    });

    const login = await api('POST', '/api/auth/login', { body: { email: u.email, password: u.password } });
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ isBanned: true, banReason: 'Policy violation' });
    expect(login.body.user.bannedAt).toEqual(ban.body.bannedAt);

    const unban = await api('PUT', `/api/admin/users/${u.id}/ban`, {
      token: admin.token,
      body: { isBanned: false, banReason: null },
    });
    expect(unban.body).toEqual({ isBanned: false, banReason: null, bannedAt: null });
    expect((await api('GET', '/api/user/profile', { token: u.token })).status).toBe(200);
  });

  it('changes role, status, plan and e-mail, and validates each', async () => {
    const admin = await adminToken();
    const u = await newUser();
    const pro = await planId('Pro');
    const res = await api('PUT', `/api/admin/users/${u.id}`, { token: admin.token, body: { plan: pro } });
    expect(res.status).toBe(200);
    expect(res.body.plan).toBe(pro);
    expect(
      (await api('PUT', `/api/admin/users/${u.id}`, { token: admin.token, body: { role: 'admin' } })).body
        .role,
    ).toBe('admin');
    expect(
      (await api('PUT', `/api/admin/users/${u.id}`, { token: admin.token, body: { status: 'inactive' } }))
        .body.status,
    ).toBe('inactive');
    const bad = await api('PUT', `/api/admin/users/${u.id}`, { token: admin.token, body: { role: 'root' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("role must be 'user' or 'admin'");
    const empty = await api('PUT', `/api/admin/users/${u.id}`, { token: admin.token, body: {} });
    expect(empty.status).toBe(400);
    const badId = await api('PUT', '/api/admin/users/not-an-id', {
      token: admin.token,
      body: { role: 'user' },
    });
    expect(badId.status).toBe(400);
    const missing = await api('PUT', `/api/admin/users/${'b'.repeat(24)}`, {
      token: admin.token,
      body: { role: 'user' },
    });
    expect(missing.status).toBe(404);
  });

  it('deletes a user, whose token then stops working; an admin cannot delete or ban themselves', async () => {
    const admin = await adminToken();
    const u = await newUser();
    expect((await api('DELETE', `/api/admin/users/${u.id}`, { token: admin.token })).status).toBe(200);
    expect((await api('GET', '/api/user/profile', { token: u.token })).status).toBe(401);
    expect((await api('DELETE', `/api/admin/users/${u.id}`, { token: admin.token })).status).toBe(404);
    const self = await api('DELETE', `/api/admin/users/${admin.id}`, { token: admin.token });
    expect(self.status).toBe(400);
    expect(self.body.message).toBe('You cannot delete your own account');
    const selfBan = await api('PUT', `/api/admin/users/${admin.id}/ban`, {
      token: admin.token,
      body: { isBanned: true },
    });
    expect(selfBan.status).toBe(400);
  });
});
