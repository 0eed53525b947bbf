import { authWorld } from '../test-world';

describe('session tokens', () => {
  it('carry an expiry and a session id of their own for every sign-in', async () => {
    const w = await authWorld();
    const { user, token } = await w.register();
    const again = await w.accounts.login('ada@example.com', 'secret-1');
    const first = w.claims(token);
    const second = w.claims(again.token);
    expect(first).toMatchObject({ sub: user.id, sv: 0, sid: expect.stringMatching(/^[\w-]{22}$/) });
    expect(second.sid).not.toBe(first.sid);
    const { exp, iat } = first as unknown as { exp: number; iat: number };
    expect(exp - iat).toBe(3600);
  });
});

describe('signing out', () => {
  it('lists the session as ended in the account state until its token would have expired', async () => {
    const w = await authWorld();
    const { user, token } = await w.register();
    const { sid } = w.claims(token);
    const expiresAt = new Date(w.clock.now().getTime() + 3600_000);
    await w.sessions.end(user.id, sid, expiresAt);
    await w.sessions.end(user.id, sid, expiresAt);
    expect(await w.sessions.ended(user.id)).toEqual([sid]);
    expect(w.views.accountState(user, await w.sessions.ended(user.id)).endedSessions).toEqual([sid]);

    w.clock.advance(3600_000);
    expect(await w.sessions.ended(user.id)).toEqual([]);
    w.clock.advance(1);
    // The next sign-out removes the records nobody needs any more.
    await w.sessions.end(user.id, 'other', new Date(w.clock.now().getTime() + 60_000));
    expect([...w.stores.endedSessions.rows.values()].map((r) => r.sessionId)).toEqual(['other']);
  });

  it('records nothing for an expired token, and keeps no record longer than a token can live', async () => {
    const w = await authWorld();
    const { user } = await w.register();
    await w.sessions.end(user.id, 'expired', new Date(w.clock.now().getTime() - 1));
    expect(w.stores.endedSessions.rows.size).toBe(0);
    await w.sessions.end(user.id, 'far', new Date(w.clock.now().getTime() + 365 * 86400_000));
    expect([...w.stores.endedSessions.rows.values()][0]!.expiresAt).toEqual(
      new Date(w.clock.now().getTime() + 3600_000),
    );
  });
});
