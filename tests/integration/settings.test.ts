import { api, newUser } from './helpers';

describe('GET /api/settings/plans', () => {
  it('lists the four plans without authentication, Free first', async () => {
    const res = await api('GET', '/api/settings/plans');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(4);
    expect(res.body[0]).toMatchObject({ name: 'Free', price: 0 });
    for (const p of res.body) {
      expect(p).toEqual({
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        name: expect.any(String),
        price: expect.any(Number),
        popular: expect.any(Boolean),
        dbLimit: expect.any(Number),
        retentionLimit: expect.any(Number),
        storageLimit: expect.any(Number),
        frequencyLimit: expect.any(Number),
        gfsLimits: {
          hourly: expect.any(Number),
          daily: expect.any(Number),
          weekly: expect.any(Number),
          monthly: expect.any(Number),
          yearly: expect.any(Number),
        },
        features: expect.arrayContaining([{ text: expect.any(String) }]),
      });
    }
    expect(res.body.filter((p: { price: number }) => p.price > 0)).toHaveLength(3);
  });
});

describe('POST /api/settings/regenerate-api-key', () => {
  it('needs a token', async () => {
    expect((await api('POST', '/api/settings/regenerate-api-key')).status).toBe(401);
  });

  it('replaces the key shown on the profile', async () => {
    const u = await newUser();
    const res = await api('POST', '/api/settings/regenerate-api-key', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body.apiKey).toMatch(/^cof_/);
    expect(res.body.apiKey).not.toBe(u.apiKey);
    const profile = await api('GET', '/api/user/profile', { token: u.token });
    expect(profile.body.apiKey).toBe(res.body.apiKey);
  });
});
