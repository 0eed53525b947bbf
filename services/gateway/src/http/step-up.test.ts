import type { Request } from 'express';
import jwt from 'jsonwebtoken';
import { activeAccount } from '../testing/account-state';
import { identity } from './identity';
import { challengeSubject, stepUpGuard } from './step-up';

const SECRET = 'step-up-test-secret-0123456789abcdef';
const USER = '64b7f0c2a1b2c3d4e5f60718';
const caller = (twoFactorEnabled: boolean, sid = 'session-1') => ({
  id: USER,
  role: 'user',
  email: 'ada@example.com',
  name: 'Ada',
  twoFactorEnabled,
  session: { userId: USER, id: sid, version: 0, expiresAt: Date.now() + 3600_000 },
});
const request = (headers: Record<string, string>) =>
  ({ header: (name: string) => headers[name.toLowerCase()] }) as unknown as Request;
const stepUpToken = (claims: object, secret = SECRET, expiresIn = 300) =>
  jwt.sign({ typ: 'coffer-step-up', sid: 'session-1', ...claims }, secret, {
    algorithm: 'HS256',
    subject: USER,
    expiresIn,
  });

/** The guard with auth's code check standing by: `valid` is the one code it takes. */
function guard(valid = '123456') {
  const seen = { attempts: 0, codes: [] as string[] };
  const requireStepUp = stepUpGuard({
    jwtSecret: SECRET,
    attempts: async () => {
      seen.attempts++;
    },
    verifyCode: async (_userId, code) => {
      seen.codes.push(code);
      if (code !== valid) throw Object.assign(new Error('wrong'), { code: 'TWO_FACTOR_CODE_INVALID' });
    },
  });
  return { requireStepUp, seen };
}

describe('step-up', () => {
  it('asks nothing of a user without two-factor sign-in', async () => {
    await expect(guard().requireStepUp(caller(false), request({}))).resolves.toBeUndefined();
  });

  it('refuses without a step-up, with STEP_UP_REQUIRED', async () => {
    await expect(guard().requireStepUp(caller(true), request({}))).rejects.toMatchObject({
      kind: 'FORBIDDEN',
      code: 'STEP_UP_REQUIRED',
    });
  });

  it("takes this session's step-up token, and no other", async () => {
    const { requireStepUp } = guard();
    const withToken = (t: string) => request({ 'x-coffer-step-up': t });
    await expect(requireStepUp(caller(true), withToken(stepUpToken({})))).resolves.toBeUndefined();
    for (const bad of [
      stepUpToken({ sid: 'session-2' }),
      stepUpToken({}, 'another-secret-0123456789abcdefghij'),
      stepUpToken({}, SECRET, -10),
      stepUpToken({ typ: 'coffer-2fa-challenge' }),
      jwt.sign({ sv: 0, sid: 'session-1' }, SECRET, { algorithm: 'HS256', subject: USER, expiresIn: 300 }),
    ])
      await expect(requireStepUp(caller(true), withToken(bad))).rejects.toMatchObject({
        code: 'STEP_UP_REQUIRED',
      });
  });

  it('takes a code in X-Coffer-2FA, counted against the account and checked by auth', async () => {
    const { requireStepUp, seen } = guard();
    await expect(requireStepUp(caller(true), request({ 'x-coffer-2fa': '123456' }))).resolves.toBeUndefined();
    await expect(requireStepUp(caller(true), request({ 'x-coffer-2fa': '000000' }))).rejects.toMatchObject({
      code: 'TWO_FACTOR_CODE_INVALID',
    });
    expect(seen).toEqual({ attempts: 2, codes: ['123456', '000000'] });
  });

  it("reads a sign-in challenge's subject only from a valid challenge", () => {
    const challenge = jwt.sign({ typ: 'coffer-2fa-challenge' }, SECRET, {
      algorithm: 'HS256',
      subject: USER,
      expiresIn: 300,
    });
    expect(challengeSubject(SECRET, challenge)).toBe(USER);
    expect(() => challengeSubject(SECRET, stepUpToken({}))).toThrow(/expired/);
    expect(() => challengeSubject('another-secret-0123456789abcdefghij', challenge)).toThrow(/expired/);
  });

  it('never takes a step-up token or a challenge for a session', async () => {
    const id = identity({
      jwtSecret: SECRET,
      cacheMs: 0,
      accountState: async () => activeAccount({ userId: USER }),
      resolveApiKey: async () => {
        throw new Error('unused');
      },
    });
    // Even with the claims a session has, a `typ` makes it something else.
    await expect(id.fromToken(stepUpToken({ sv: 0 }))).rejects.toMatchObject({ kind: 'UNAUTHENTICATED' });
    const session = jwt.sign({ sv: 0, sid: 'session-1' }, SECRET, {
      algorithm: 'HS256',
      subject: USER,
      expiresIn: 300,
    });
    await expect(id.fromToken(session)).resolves.toMatchObject({ id: USER });
  });
});
