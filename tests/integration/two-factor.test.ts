// Two-factor sign-in (issue 19) against the real stack: enrolment, the sign-in's second step with a
// TOTP code or a recovery code (each once), step-up on every destructive action, and the limit on
// code attempts. Each case uses users of its own.
import crypto from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { api, eventually, newUser, type TestUser } from './helpers';

jest.setTimeout(90_000);

/** The authenticator app: the code of a 30-second step (steps counted from the epoch, as RFC 6238). */
const authenticator = (secret: string) => {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  return (step: number) => totp.generate({ timestamp: step * 30_000 });
};
const currentStep = () => Math.floor(Date.now() / 30_000);

interface Enrolled extends TestUser {
  code: (step: number) => string;
  /** The step whose code confirmed the enrolment (used: no later request may take it). */
  enrolledAt: number;
  recoveryCodes: string[];
}

/** A fresh user who turned two-factor sign-in on through the API. */
async function enrolledUser(prefix = '2fa'): Promise<Enrolled> {
  const user = await newUser(prefix);
  const setup = await api('POST', '/api/user/two-factor/setup', { token: user.token });
  expect(setup.status).toBe(200);
  const code = authenticator(setup.body.secret);
  const enrolledAt = currentStep();
  const on = await api('POST', '/api/user/two-factor/enable', {
    token: user.token,
    body: { code: code(enrolledAt) },
  });
  expect(on.status).toBe(200);
  return { ...user, code, enrolledAt, recoveryCodes: on.body.recoveryCodes };
}

const signIn = (u: TestUser) =>
  api('POST', '/api/auth/login', { body: { email: u.email, password: u.password } });
const secondStep = (challenge: string, code: string) =>
  api('POST', '/api/auth/login/2fa', { body: { challenge, code } });

describe('enrolment', () => {
  it('shows a QR code and the secret, and is on only once a valid code confirms it', async () => {
    const user = await newUser('2fa-enrol');
    expect((await api('GET', '/api/user/two-factor', { token: user.token })).body).toEqual({
      enabled: false,
      enrolmentRequired: false,
      recoveryCodesLeft: 0,
    });
    const setup = await api('POST', '/api/user/two-factor/setup', { token: user.token });
    expect(setup.status).toBe(200);
    expect(setup.headers.get('cache-control')).toBe('no-store');
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.body.otpauthUrl).toContain(`secret=${setup.body.secret}`);
    expect(setup.body.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);

    const wrong = await api('POST', '/api/user/two-factor/enable', {
      token: user.token,
      body: { code: '000000' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('TWO_FACTOR_CODE_INVALID');
    // Not on yet: the password alone still signs in.
    expect((await signIn(user)).body.token).toEqual(expect.any(String));

    const code = authenticator(setup.body.secret);
    const on = await api('POST', '/api/user/two-factor/enable', {
      token: user.token,
      body: { code: code(currentStep()) },
    });
    expect(on.status).toBe(200);
    expect(on.body.recoveryCodes).toHaveLength(10);
    expect((await api('GET', '/api/user/two-factor', { token: user.token })).body).toMatchObject({
      enabled: true,
      recoveryCodesLeft: 10,
    });
    const again = await api('POST', '/api/user/two-factor/setup', { token: user.token });
    expect(again.status).toBe(409);
  });
});

describe('sign-in with two-factor on', () => {
  it('gives no session for the password alone; the current code completes it, once', async () => {
    const user = await enrolledUser('2fa-signin');
    const first = await signIn(user);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      message: expect.any(String),
      twoFactorRequired: true,
      challenge: expect.any(String),
    });
    const challenge = first.body.challenge!;
    // The challenge is no session.
    expect((await api('GET', '/api/user/profile', { token: challenge })).status).toBe(401);

    const wrong = await secondStep(challenge, '000000');
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('TWO_FACTOR_CODE_INVALID');
    // The step the enrolment used is spent; the next one is within the window.
    expect((await secondStep(challenge, user.code(user.enrolledAt))).status).toBe(400);
    const next = user.code(user.enrolledAt + 1);
    const ok = await secondStep(challenge, next);
    expect(ok.status).toBe(200);
    expect(ok.body.user).toMatchObject({ id: user.id, email: user.email });
    expect((await api('GET', '/api/user/profile', { token: ok.body.token })).status).toBe(200);
    // Replayed within its window: refused.
    const replay = await secondStep(challenge, next);
    expect(replay.status).toBe(400);
    expect(replay.body.code).toBe('TWO_FACTOR_CODE_INVALID');
  });

  it('takes a recovery code instead, once, and says so in the audit log', async () => {
    const user = await enrolledUser('2fa-recovery');
    const { challenge } = (await signIn(user)).body;
    const recovery = user.recoveryCodes[0]!;
    const ok = await secondStep(challenge!, recovery.toUpperCase());
    expect(ok.status).toBe(200);
    expect((await secondStep(challenge!, recovery)).status).toBe(400);
    expect((await api('GET', '/api/user/two-factor', { token: ok.body.token })).body.recoveryCodesLeft).toBe(
      9,
    );
    await eventually(async () => {
      const logs = await api('GET', '/api/user/audit-logs', { token: ok.body.token });
      expect(logs.body.logs.map((l: { action: string }) => l.action)).toEqual(
        expect.arrayContaining(['TWO_FACTOR_ENABLED', 'RECOVERY_CODE_USED']),
      );
    }, 30_000);
    // No code or secret is in the log.
    expect(JSON.stringify(await api('GET', '/api/user/audit-logs', { token: ok.body.token }))).not.toContain(
      recovery,
    );
  });

  it('refuses a forged or foreign challenge', async () => {
    const user = await enrolledUser('2fa-forged');
    const forged = `${crypto.randomBytes(20).toString('base64url')}.x.y`;
    const res = await secondStep(forged, user.code(user.enrolledAt + 1));
    expect(res.status).toBe(401);
  });

  it('limits code attempts per account', async () => {
    const user = await enrolledUser('2fa-limit');
    const { challenge } = (await signIn(user)).body;
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await secondStep(challenge!, '000000')).status);
    expect(statuses).toContain(429);
    // Limited even with the right code now.
    expect((await secondStep(challenge!, user.recoveryCodes[0]!)).status).toBe(429);
  });
});

describe('step-up', () => {
  it('asks for the second factor again before each destructive action, and takes a step-up token', async () => {
    const user = await enrolledUser('2fa-stepup');
    const { token } = user;
    const backupId = crypto.randomBytes(12).toString('hex');
    let h: Record<string, string> = {};
    const regenerateKey = () => api('POST', '/api/settings/regenerate-api-key', { token, headers: h });
    const deleteBackup = () => api('DELETE', `/api/backups/${backupId}`, { token, headers: h });
    const changeEmail = () =>
      api('PUT', '/api/user/update', {
        token,
        headers: h,
        body: { email: `new-${user.email}`, currentPassword: user.password },
      });
    const newRecoveryCodes = () => api('POST', '/api/user/two-factor/recovery-codes', { token, headers: h });
    const changePassword = () =>
      api('PUT', '/api/user/password', {
        token,
        headers: h,
        body: { currentPassword: user.password, newPassword: 'another-horse-2' },
      });
    for (const action of [regenerateKey, deleteBackup, changeEmail, newRecoveryCodes, changePassword]) {
      const refused = await action();
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('STEP_UP_REQUIRED');
    }
    // A name change is no step-up matter.
    expect((await api('PUT', '/api/user/update', { token, body: { name: 'Ada Two' } })).status).toBe(200);

    const wrong = await api('POST', '/api/auth/step-up', { token, body: { code: '000000' } });
    expect(wrong.status).toBe(400);
    const up = await api('POST', '/api/auth/step-up', { token, body: { code: user.recoveryCodes[1]! } });
    expect(up.status).toBe(200);
    h = { 'X-Coffer-Step-Up': up.body.stepUpToken };
    const regenerated = await regenerateKey();
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.apiKey).not.toBe(user.apiKey);
    // Past the step-up, the route itself answers: no such backup of this user.
    expect((await deleteBackup()).status).toBe(404);
    expect((await changeEmail()).status).toBe(200);
    const codes = await newRecoveryCodes();
    expect(codes.status).toBe(200);
    expect(codes.body.recoveryCodes).toHaveLength(10);

    // The token is this session's: another session of the same user cannot use it.
    const other = await secondStep(
      (
        await api('POST', '/api/auth/login', {
          body: { email: `new-${user.email}`, password: user.password },
        })
      ).body.challenge!,
      codes.body.recoveryCodes[0]!,
    );
    expect(other.status).toBe(200);
    const foreign = await api('POST', '/api/settings/regenerate-api-key', {
      token: other.body.token,
      headers: h,
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe('STEP_UP_REQUIRED');

    // A code in X-Coffer-2FA does the same, once.
    h = { 'X-Coffer-2FA': codes.body.recoveryCodes[1]! };
    const password = await changePassword();
    expect(password.status).toBe(200);
    const replayed = await api('POST', '/api/settings/regenerate-api-key', {
      token: password.body.token,
      headers: h,
    });
    expect(replayed.status).toBe(400);
    expect(replayed.body.code).toBe('TWO_FACTOR_CODE_INVALID');
  });

  it('turns two-factor sign-in off only with a step-up; the password alone signs in again', async () => {
    const user = await enrolledUser('2fa-off');
    const refused = await api('POST', '/api/user/two-factor/disable', { token: user.token });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('STEP_UP_REQUIRED');
    const off = await api('POST', '/api/user/two-factor/disable', {
      token: user.token,
      headers: { 'X-Coffer-2FA': user.recoveryCodes[0]! },
    });
    expect(off.status).toBe(200);
    expect((await signIn(user)).body.token).toEqual(expect.any(String));
    // Without two-factor sign-in, nothing asks for a step-up.
    expect((await api('POST', '/api/settings/regenerate-api-key', { token: user.token })).status).toBe(200);
  });

  it('turns the retention lock on at once, but asks for the second factor before turning it off', async () => {
    const user = await enrolledUser('2fa-lock');
    const lock = (enabled: boolean, headers: Record<string, string> = {}) =>
      api('PUT', '/api/settings/retention-lock', { token: user.token, headers, body: { enabled } });
    const on = await lock(true);
    expect(on.status).toBe(200);
    expect(on.body.retentionLock.enabled).toBe(true);
    const refused = await lock(false);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('STEP_UP_REQUIRED');
    expect(
      (await api('GET', '/api/settings', { token: user.token })).body.retentionLock.offAt,
    ).toBeUndefined();
    const off = await lock(false, { 'X-Coffer-2FA': user.recoveryCodes[0]! });
    expect(off.status).toBe(200);
    expect(off.body.retentionLock.offAt).toEqual(expect.any(String));
  });

  it('asks nothing more of users without two-factor sign-in, whose sign-in answer is unchanged', async () => {
    const user = await newUser('no-2fa');
    const res = await signIn(user);
    expect(Object.keys(res.body).sort()).toEqual(['message', 'token', 'user']);
    expect(
      (await api('DELETE', `/api/backups/${crypto.randomBytes(12).toString('hex')}`, { token: user.token }))
        .status,
    ).toBe(404);
  });
});
