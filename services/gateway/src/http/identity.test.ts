import jwt from 'jsonwebtoken';
import { auth } from '@coffer/proto';
import { ACCOUNT_INACTIVE_MESSAGE, notFound } from '@coffer/common';
import { activeAccount } from '../testing/account-state';
import { identity } from './identity';

const SECRET = 'identity-test-secret-0123456789abcdef';
const USER = '64b7f0c2a1b2c3d4e5f60718';

const state = (sessionVersion: number) => activeAccount({ userId: USER, sessionVersion });
const token = (sv: number, sid = 'session-1') =>
  jwt.sign({ sub: USER, sv, sid }, SECRET, { algorithm: 'HS256', expiresIn: 3600 });

describe('identity: session versions', () => {
  /** auth answers `current` (settable); the cache keeps an answer for a minute. */
  function world() {
    const auth = { current: 0, calls: 0 };
    const id = identity({
      jwtSecret: SECRET,
      cacheMs: 60_000,
      accountState: async () => {
        auth.calls++;
        return state(auth.current);
      },
      resolveApiKey: async () => state(auth.current),
    });
    return { auth, id };
  }

  it('refuses a token older than the session version (a password change or reset ended it)', async () => {
    const { auth, id } = world();
    auth.current = 1;
    await expect(id.fromToken(token(0))).rejects.toMatchObject({
      kind: 'UNAUTHENTICATED',
      message: 'Session expired',
    });
    await expect(id.fromToken(token(1))).resolves.toMatchObject({ id: USER });
  });

  it('takes a token newer than its cached state as a sign the cache is stale, not the token', async () => {
    const { auth, id } = world();
    await id.fromToken(token(0));
    // The password changed through another gateway: auth moved on, this cache did not.
    auth.current = 1;
    await expect(id.fromToken(token(1))).resolves.toMatchObject({ id: USER });
    // ...and the refreshed state now refuses the old token at once.
    await expect(id.fromToken(token(0))).rejects.toMatchObject({ message: 'Session expired' });
    expect(auth.calls).toBe(2);
  });
});

describe('identity: account status', () => {
  const inactive = { ...state(0), status: auth.AccountStatus.ACCOUNT_STATUS_INACTIVE };
  const id = identity({
    jwtSecret: SECRET,
    cacheMs: 60_000,
    accountState: async () => inactive,
    resolveApiKey: async () => inactive,
  });

  it('refuses a session of an account an admin made inactive', async () => {
    await expect(id.fromToken(token(0))).rejects.toMatchObject({
      kind: 'FORBIDDEN',
      code: 'ACCOUNT_INACTIVE',
      message: ACCOUNT_INACTIVE_MESSAGE,
    });
  });

  it("refuses the agents of an inactive account (their owner's API key)", async () => {
    await expect(id.fromApiKey('cof_key', 'agent-1')).rejects.toMatchObject({ code: 'ACCOUNT_INACTIVE' });
  });
});

describe('identity: what a token must carry', () => {
  const id = identity({
    jwtSecret: SECRET,
    cacheMs: 60_000,
    accountState: async () => state(0),
    resolveApiKey: async () => state(0),
  });
  const refused = { kind: 'UNAUTHENTICATED', message: 'Invalid or expired token' };

  it('refuses a token without an expiry, though signed with the right secret', async () => {
    const forever = jwt.sign({ sub: USER, sv: 0, sid: 'session-1' }, SECRET, { algorithm: 'HS256' });
    await expect(id.fromToken(forever)).rejects.toMatchObject(refused);
  });

  it('refuses a token without a session id (issued before sessions had one)', async () => {
    const old = jwt.sign({ sub: USER, sv: 0 }, SECRET, { algorithm: 'HS256', expiresIn: 3600 });
    await expect(id.fromToken(old)).rejects.toMatchObject(refused);
  });

  it('refuses an expired token and one signed with another secret or algorithm', async () => {
    const expired = jwt.sign({ sub: USER, sv: 0, sid: 's', exp: Math.floor(Date.now() / 1000) - 10 }, SECRET);
    const other = jwt.sign({ sub: USER, sv: 0, sid: 's' }, 'another-secret-0123456789abcdef', {
      expiresIn: 3600,
    });
    const none = jwt.sign({ sub: USER, sv: 0, sid: 's' }, '', { algorithm: 'none', expiresIn: 3600 });
    for (const t of [expired, other, none]) await expect(id.fromToken(t)).rejects.toMatchObject(refused);
  });

  it('names the session of a good token', async () => {
    await expect(id.fromToken(token(0))).resolves.toMatchObject({
      id: USER,
      session: { userId: USER, id: 'session-1', version: 0, expiresAt: expect.any(Number) },
    });
  });
});

describe('identity: sessions signed out', () => {
  /** auth's state for the user, settable; the cache keeps an answer for a minute. */
  function world() {
    const current = { ...state(0), endedSessions: [] as string[] };
    let calls = 0;
    const id = identity({
      jwtSecret: SECRET,
      cacheMs: 60_000,
      accountState: async () => {
        calls++;
        return structuredClone(current);
      },
      resolveApiKey: async () => current,
    });
    return { current, id, calls: () => calls };
  }

  it("refuses an ended session's token once the cache is dropped, and keeps the user's other sessions", async () => {
    const w = world();
    await w.id.fromToken(token(0, 'laptop'));
    w.current.endedSessions = ['laptop'];
    // Cached: this gateway has not heard of the sign-out yet (others learn within the cache time).
    await expect(w.id.fromToken(token(0, 'laptop'))).resolves.toMatchObject({ id: USER });
    w.id.forget(USER);
    await expect(w.id.fromToken(token(0, 'laptop'))).rejects.toMatchObject({
      kind: 'UNAUTHENTICATED',
      message: 'Session expired',
    });
    await expect(w.id.fromToken(token(0, 'phone'))).resolves.toMatchObject({ id: USER });
  });

  it('reads the account fresh when asked (a socket handshake), without a call per request otherwise', async () => {
    const w = world();
    await w.id.fromToken(token(0, 'laptop'));
    await w.id.fromToken(token(0, 'laptop'));
    expect(w.calls()).toBe(1);
    w.current.endedSessions = ['laptop'];
    await expect(w.id.fromToken(token(0, 'laptop'), { fresh: true })).rejects.toMatchObject({
      message: 'Session expired',
    });
    expect(w.calls()).toBe(2);
  });

  it('lets a suspended account end its session, and nobody an ended one', async () => {
    const w = world();
    Object.assign(w.current, { isBanned: true, banReason: 'abuse' });
    await expect(w.id.fromToken(token(0))).rejects.toMatchObject({ code: 'ACCOUNT_BANNED' });
    await expect(w.id.fromToken(token(0), { evenIfSuspended: true })).resolves.toMatchObject({ id: USER });
    w.current.endedSessions = ['session-1'];
    w.id.forget(USER);
    await expect(w.id.fromToken(token(0), { evenIfSuspended: true })).rejects.toMatchObject({
      message: 'Session expired',
    });
  });

  it('tests open sessions against the account as auth has it now', async () => {
    const w = world();
    const session = (id: string, version = 0, expiresAt = Date.now() + 60_000) => ({
      userId: USER,
      id,
      version,
      expiresAt,
    });
    await w.id.fromToken(token(0, 'laptop'));
    w.current.endedSessions = ['laptop'];
    let admits = await w.id.sessionTest(USER);
    expect(admits(session('laptop'))).toBe(false);
    expect(admits(session('phone'))).toBe(true);
    expect(admits(session('phone', 0, Date.now() - 1))).toBe(false);

    w.current.sessionVersion = 1;
    admits = await w.id.sessionTest(USER);
    expect(admits(session('phone'))).toBe(false);
    expect(admits(session('new', 1))).toBe(true);

    w.current.status = auth.AccountStatus.ACCOUNT_STATUS_INACTIVE;
    expect((await w.id.sessionTest(USER))(session('new', 1))).toBe(false);
  });

  it('admits no session of an account that no longer exists', async () => {
    const id = identity({
      jwtSecret: SECRET,
      cacheMs: 60_000,
      accountState: async () => {
        throw notFound('User not found');
      },
      resolveApiKey: async () => state(0),
    });
    const admits = await id.sessionTest(USER);
    expect(admits({ userId: USER, id: 's', version: 0, expiresAt: Date.now() + 60_000 })).toBe(false);
  });
});
