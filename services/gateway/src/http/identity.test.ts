import jwt from 'jsonwebtoken';
import { auth } from '@coffer/proto';
import { ACCOUNT_INACTIVE_MESSAGE } from '@coffer/common';
import { identity } from './identity';

const SECRET = 'identity-test-secret-0123456789abcdef';
const USER = '64b7f0c2a1b2c3d4e5f60718';

const state = (sessionVersion: number): auth.AccountState => ({
  userId: USER,
  role: auth.Role.ROLE_USER,
  isBanned: false,
  status: auth.AccountStatus.ACCOUNT_STATUS_ACTIVE,
  email: 'ada@example.com',
  name: 'Ada',
  sessionVersion,
});
const token = (sv: number) => jwt.sign({ sub: USER, sv }, SECRET, { algorithm: 'HS256', expiresIn: 3600 });

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
