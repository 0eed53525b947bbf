import { api, newUser } from './helpers';

describe('/api/settings', () => {
  it('needs a token', async () => {
    expect((await api('GET', '/api/settings')).status).toBe(401);
    expect((await api('PUT', '/api/settings', { body: {} })).status).toBe(401);
  });

  it('starts daily with 3 days retention and every notification on', async () => {
    const u = await newUser();
    const res = await api('GET', '/api/settings', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      frequency: 24,
      retention: 72,
      retentionMode: 'days',
      notifications: { backupSuccess: true, backupFailure: true, agentDisconnection: true },
      email: u.email,
      retentionLock: { enabled: false, offDelaySeconds: 7 * 24 * 3600 },
    });
  });

  it('PUT /api/settings/retention-lock needs a token and a true or false', async () => {
    const u = await newUser();
    expect((await api('PUT', '/api/settings/retention-lock', { body: { enabled: true } })).status).toBe(401);
    for (const body of [{}, { enabled: 'yes' }]) {
      const bad = await api('PUT', '/api/settings/retention-lock', { token: u.token, body });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('enabled must be true or false');
    }
    const on = await api('PUT', '/api/settings/retention-lock', { token: u.token, body: { enabled: true } });
    expect(on.status).toBe(200);
    expect(on.body.retentionLock).toEqual({ enabled: true, offDelaySeconds: 7 * 24 * 3600 });
  });

  it('validates frequency, retention and toggles', async () => {
    const u = await newUser();
    const freq = await api('PUT', '/api/settings', { token: u.token, body: { frequency: 'yearly' } });
    expect(freq.status).toBe(400);
    expect(freq.body.message).toBe('frequency must be hourly, daily, weekly or monthly');
    const ret = await api('PUT', '/api/settings', { token: u.token, body: { retention: 100 } });
    expect(ret.status).toBe(400);
    expect(ret.body.message).toBe('retention must be one of 72, 168, 336, 720, 2160, 4320 hours');
    const toggle = await api('PUT', '/api/settings', {
      token: u.token,
      body: { notifications: { backupSuccess: 'no' } },
    });
    expect(toggle.status).toBe(400);
  });

  it("keeps within the plan's bounds (Free: daily at most, 7 days retention at most)", async () => {
    const u = await newUser();
    const hourly = await api('PUT', '/api/settings', { token: u.token, body: { frequency: 'hourly' } });
    expect(hourly.status).toBe(403);
    const long = await api('PUT', '/api/settings', { token: u.token, body: { retention: 720 } });
    expect(long.status).toBe(403);
  });

  it('saves and answers in hours', async () => {
    const u = await newUser();
    const res = await api('PUT', '/api/settings', {
      token: u.token,
      body: {
        frequency: 'weekly',
        retention: 168,
        notifications: { backupSuccess: false, backupFailure: true, agentDisconnection: false },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      frequency: 168,
      retention: 168,
      notifications: { backupSuccess: false, backupFailure: true, agentDisconnection: false },
    });
    expect((await api('GET', '/api/settings', { token: u.token })).body).toEqual(res.body);
  });
});
