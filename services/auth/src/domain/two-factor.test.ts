import jwt from 'jsonwebtoken';
import { Secret, TOTP } from 'otpauth';
import { authWorld, TEST_SETTINGS, type AuthWorld } from '../test-world';
import { CHALLENGE_EXPIRED, CODE_INVALID } from './two-factor';

/** The authenticator app: the code of the world's clock, `steps` periods away. */
const app =
  (w: AuthWorld, secret: string) =>
  (steps = 0) =>
    new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
      timestamp: w.clock.now().getTime() + steps * 30_000,
    });

/** A registered user with two-factor sign-in on: the app, the recovery codes and the user. */
async function enrolled(w: AuthWorld, email = 'ada@example.com') {
  const { user } = await w.register(email);
  const { secret } = await w.twoFactor.startEnrolment(user.id);
  const code = app(w, secret);
  const recoveryCodes = await w.twoFactor.confirmEnrolment(user.id, code());
  // The enrolment used this step's code: move on so each case starts with an unused one.
  w.clock.advance(30_000);
  return { user, code, recoveryCodes };
}

const invalid = { kind: 'BAD_INPUT', code: 'TWO_FACTOR_CODE_INVALID', message: CODE_INVALID };

describe('enrolment', () => {
  it('shows a new secret as a QR code and as text, and is off until a code confirms it', async () => {
    const w = await authWorld();
    const { user } = await w.register();
    const e = await w.twoFactor.startEnrolment(user.id);
    expect(e.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(e.otpauthUrl).toMatch(/^otpauth:\/\/totp\/Coffer:ada%40example\.com\?/);
    expect(e.otpauthUrl).toContain(`secret=${e.secret}`);
    expect(Buffer.from(e.qrCode.replace('data:image/svg+xml;base64,', ''), 'base64').toString()).toContain(
      '<svg',
    );
    // Stored sealed: the database never holds the secret itself.
    expect(JSON.stringify([...w.stores.twoFactor.rows.values()])).not.toContain(e.secret);
    expect(await w.twoFactor.status(user)).toEqual({
      enabled: false,
      enrolmentRequired: false,
      recoveryCodesLeft: 0,
    });
    await expect(w.accounts.login('ada@example.com', 'secret-1')).resolves.toHaveProperty('token');

    await expect(w.twoFactor.confirmEnrolment(user.id, '000000')).rejects.toMatchObject(invalid);
    const codes = await w.twoFactor.confirmEnrolment(user.id, app(w, e.secret)());
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect(JSON.stringify([...w.stores.twoFactor.rows.values()])).not.toContain(codes[0]);
    expect(await w.twoFactor.status(user)).toEqual({
      enabled: true,
      enrolmentRequired: false,
      recoveryCodesLeft: 10,
    });
    expect(w.events.of('auth.user.two_factor_enabled')).toEqual([{ userId: user.id }]);
  });

  it('refuses a new enrolment while it is on, and a second confirmation', async () => {
    const w = await authWorld();
    const { user, code } = await enrolled(w);
    await expect(w.twoFactor.startEnrolment(user.id)).rejects.toMatchObject({ kind: 'CONFLICT' });
    await expect(w.twoFactor.confirmEnrolment(user.id, code())).rejects.toMatchObject({ kind: 'CONFLICT' });
  });

  it('sends an admin to enrol when the site requires it, until they have', async () => {
    const w = await authWorld();
    const { user } = await w.register('root@example.com');
    await w.stores.users.update(user.id, { role: 'admin' });
    const admin = { id: user.id, role: 'admin' as const };
    await w.twoFactor.setPolicy(user.id, true);
    expect(await w.twoFactor.status(admin)).toMatchObject({ enrolmentRequired: true });
    // Users are not concerned.
    expect(await w.twoFactor.status({ id: user.id, role: 'user' })).toMatchObject({
      enrolmentRequired: false,
    });
    const { secret } = await w.twoFactor.startEnrolment(user.id);
    await w.twoFactor.confirmEnrolment(user.id, app(w, secret)());
    expect(await w.twoFactor.status(admin)).toMatchObject({ enrolmentRequired: false, enabled: true });
    expect(w.events.of('auth.security.admin_two_factor_changed')).toEqual([
      { userId: user.id, requireAdminTwoFactor: true },
    ]);
  });
});

describe('sign-in with two-factor on', () => {
  it('answers a challenge instead of a session, and a current code completes it', async () => {
    const w = await authWorld();
    const { user, code } = await enrolled(w);
    const first = await w.accounts.login('ada@example.com', 'secret-1');
    expect(first).not.toHaveProperty('token');
    const { challenge } = first as { challenge: string };
    // A challenge is no session: it carries no session version or id.
    expect(jwt.decode(challenge)).not.toHaveProperty('sv');
    expect(jwt.decode(challenge)).not.toHaveProperty('sid');
    await expect(w.twoFactor.completeSignIn(challenge, '123456')).rejects.toMatchObject(invalid);
    await expect(w.twoFactor.completeSignIn(challenge, code())).resolves.toMatchObject({ id: user.id });
  });

  it('accepts codes of the neighbouring steps only, and never the same step twice', async () => {
    const w = await authWorld();
    const { code } = await enrolled(w);
    // One step further, so the step before the current one is unused too (the enrolment used one).
    w.clock.advance(30_000);
    const { challenge } = (await w.accounts.login('ada@example.com', 'secret-1')) as { challenge: string };
    await expect(w.twoFactor.completeSignIn(challenge, code(2))).rejects.toMatchObject(invalid);
    await expect(w.twoFactor.completeSignIn(challenge, code(-2))).rejects.toMatchObject(invalid);
    const previous = code(-1);
    const current = code();
    await expect(w.twoFactor.completeSignIn(challenge, previous)).resolves.toBeDefined();
    await expect(w.twoFactor.completeSignIn(challenge, current)).resolves.toBeDefined();
    // Replays: the same code, and an earlier step's code, within their window.
    await expect(w.twoFactor.completeSignIn(challenge, current)).rejects.toMatchObject(invalid);
    await expect(w.twoFactor.completeSignIn(challenge, previous)).rejects.toMatchObject(invalid);
    w.clock.advance(30_000);
    await expect(w.twoFactor.completeSignIn(challenge, code())).resolves.toBeDefined();
  });

  it('takes each recovery code once, typed in any case and spacing', async () => {
    const w = await authWorld();
    const { user, recoveryCodes } = await enrolled(w);
    const { challenge } = (await w.accounts.login('ada@example.com', 'secret-1')) as { challenge: string };
    const used = recoveryCodes[3]!;
    const typed = ` ${used.toUpperCase().replace('-', ' ')} `;
    await expect(w.twoFactor.completeSignIn(challenge, typed)).resolves.toMatchObject({ id: user.id });
    await expect(w.twoFactor.completeSignIn(challenge, used)).rejects.toMatchObject(invalid);
    await expect(w.twoFactor.completeSignIn(challenge, 'abcde-fghij')).rejects.toMatchObject(invalid);
    expect((await w.twoFactor.status(user)).recoveryCodesLeft).toBe(9);
    expect(w.events.of('auth.user.recovery_code_used')).toEqual([{ userId: user.id, recoveryCodesLeft: 9 }]);
  });

  it('refuses a challenge after five minutes, after a password change, or for another account', async () => {
    const w = await authWorld();
    const { user, code } = await enrolled(w);
    await enrolled(w, 'bob@example.com');
    const { challenge } = (await w.accounts.login('ada@example.com', 'secret-1')) as { challenge: string };
    const expired = { kind: 'UNAUTHENTICATED', message: CHALLENGE_EXPIRED };

    w.clock.advance(5 * 60_000 + 1000);
    await expect(w.twoFactor.completeSignIn(challenge, code())).rejects.toMatchObject(expired);

    const again = (await w.accounts.login('ada@example.com', 'secret-1')) as { challenge: string };
    await w.accounts.changePassword(user.id, 'secret-1', 'another-1');
    await expect(w.twoFactor.completeSignIn(again.challenge, code())).rejects.toMatchObject(expired);

    // Re-signed for another subject without the secret: the signature fails.
    const claims = jwt.decode(again.challenge) as jwt.JwtPayload;
    const forged = jwt.sign({ ...claims, sub: 'f'.repeat(24) }, 'not-the-secret', { algorithm: 'HS256' });
    await expect(w.twoFactor.completeSignIn(forged, code())).rejects.toMatchObject(expired);
    // An account deactivated since the password step gets no session.
    const fresh = (await w.accounts.login('bob@example.com', 'secret-1')) as { challenge: string };
    const bob = (await w.stores.users.byEmail('bob@example.com'))!;
    await w.stores.users.update(bob.id, { status: 'inactive' });
    await expect(w.twoFactor.completeSignIn(fresh.challenge, '123456')).rejects.toMatchObject({
      code: 'ACCOUNT_INACTIVE',
    });
    // A session token is not a challenge either.
    const { token } = await w.accounts.register({
      name: 'Eve',
      email: 'eve@example.com',
      password: 'secret-1',
    });
    await expect(w.twoFactor.completeSignIn(token, code())).rejects.toMatchObject(expired);
  });
});

describe('step-up, recovery codes and turning it off', () => {
  it('gives a step-up token bound to the session after a fresh code', async () => {
    const w = await authWorld();
    const { user, code } = await enrolled(w);
    const { token, expiresAt } = await w.twoFactor.stepUp(user.id, 'session-1', code());
    const clockTimestamp = w.clock.now().getTime() / 1000;
    expect(jwt.verify(token, TEST_SETTINGS.JWT_SECRET, { clockTimestamp })).toMatchObject({
      sub: user.id,
      sid: 'session-1',
      typ: 'coffer-step-up',
    });
    expect(expiresAt.getTime() - w.clock.now().getTime()).toBe(5 * 60_000);
    await expect(w.twoFactor.stepUp(user.id, 'session-1', code())).rejects.toMatchObject(invalid);
  });

  it('replaces the recovery codes: the old ones stop working', async () => {
    const w = await authWorld();
    const { user, recoveryCodes } = await enrolled(w);
    const fresh = await w.twoFactor.regenerateRecoveryCodes(user.id);
    await expect(w.twoFactor.verify(user.id, recoveryCodes[0]!)).rejects.toMatchObject(invalid);
    await expect(w.twoFactor.verify(user.id, fresh[0]!)).resolves.toBe('recovery');
    expect(w.events.of('auth.user.recovery_codes_regenerated')).toEqual([{ userId: user.id }]);
  });

  it('turned off, sign-in takes the password alone again and codes are refused', async () => {
    const w = await authWorld();
    const { user, code } = await enrolled(w);
    await w.twoFactor.disable(user.id);
    await expect(w.accounts.login('ada@example.com', 'secret-1')).resolves.toHaveProperty('token');
    await expect(w.twoFactor.verify(user.id, code())).rejects.toMatchObject(invalid);
    expect(w.events.of('auth.user.two_factor_disabled')).toEqual([{ userId: user.id }]);
  });
});
