import crypto from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import {
  ACCOUNT_INACTIVE_MESSAGE,
  AppError,
  conflict,
  forbidden,
  notFound,
  unauthenticated,
} from '@coffer/common';
import { normaliseSecondFactorCode, TOTP_CODE } from '@coffer/contracts';
import type { AuthEvents } from '../events.js';
import type { SecuritySettingsStore, TwoFactorStore, UserRecord, UserStore } from '../store/types.js';
import type { TwoFactorTokens } from './tokens.js';
import type { TwoFactorVault } from './two-factor-vault.js';

/** RFC 6238 as every authenticator app reads it: SHA-1, six digits, 30-second steps. */
const TOTP_PARAMS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** Codes of the step before and after the current one pass too (clock drift, slow typing). */
const WINDOW = 1;
const ISSUER = 'Coffer';

export const CODE_INVALID =
  'That code is not valid. Enter the current code from your authenticator app, or an unused recovery code.';
export const CHALLENGE_EXPIRED =
  'This sign-in has expired. Please sign in again with your email and password.';

const codeInvalid = () => new AppError('BAD_INPUT', CODE_INVALID, 'TWO_FACTOR_CODE_INVALID');

/** What identifies the password that was checked, without being usable to check one. */
export const passwordCheckOf = (user: Pick<UserRecord, 'passwordHash'>) =>
  crypto.createHash('sha256').update(user.passwordHash).digest('base64url').slice(0, 22);

export interface TwoFactorStatus {
  enabled: boolean;
  /** An admin who must use two-factor sign-in (the site requires it) and has not set it up yet. */
  enrolmentRequired: boolean;
  recoveryCodesLeft: number;
}

/**
 * Two-factor sign-in with TOTP (RFC 6238, `otpauth`): enrolment confirmed by a first code, ten
 * single-use recovery codes, the second step of a sign-in (a challenge bound to the password check)
 * and step-up tokens for destructive actions. A code's time step is recorded when it is accepted and
 * never accepted again, so a code seen over a shoulder or in a log cannot be replayed.
 */
export function twoFactor(deps: {
  store: TwoFactorStore;
  settings: SecuritySettingsStore;
  users: Pick<UserStore, 'get'>;
  vault: TwoFactorVault;
  tokens: TwoFactorTokens;
  events: AuthEvents;
  now?: () => Date;
}) {
  const { store, vault, events } = deps;
  const now = deps.now ?? (() => new Date());
  const totpOf = (secret: Secret, label = '') => new TOTP({ issuer: ISSUER, label, ...TOTP_PARAMS, secret });

  /** The time step a TOTP code belongs to, or null when it is not valid now. */
  function stepOf(sealedSecret: string, code: string): number | null {
    const totp = totpOf(Secret.fromBase32(vault.unseal(sealedSecret)));
    const timestamp = now().getTime();
    const delta = totp.validate({ token: code, timestamp, window: WINDOW });
    return delta === null ? null : totp.counter({ timestamp }) + delta;
  }

  async function load(userId: string): Promise<UserRecord> {
    const user = await deps.users.get(userId);
    if (!user) throw notFound('User not found');
    return user;
  }

  /**
   * Checks a second factor of an enabled user and uses it up: a TOTP code's step, or one recovery
   * code. Anything else (wrong, expired, replayed, used) is TWO_FACTOR_CODE_INVALID.
   */
  async function verify(userId: string, given: string): Promise<'totp' | 'recovery'> {
    const record = await store.get(userId);
    if (!record?.enabled) throw codeInvalid();
    const code = normaliseSecondFactorCode(given);
    if (TOTP_CODE.test(code)) {
      const step = stepOf(record.secretSealed, code);
      if (step === null || !(await store.useStep(userId, step))) throw codeInvalid();
      return 'totp';
    }
    if (!(await store.useRecoveryCode(userId, vault.recoveryHash(code)))) throw codeInvalid();
    const left = (await store.get(userId))?.recoveryCodes.length ?? 0;
    await events.publish('auth.user.recovery_code_used', { userId, recoveryCodesLeft: left });
    return 'recovery';
  }

  async function newRecoveryCodes() {
    const codes = vault.newRecoveryCodes();
    return { codes, hashes: codes.map(vault.recoveryHash) };
  }

  return {
    verify,

    async isEnabled(userId: string): Promise<boolean> {
      return (await store.get(userId))?.enabled ?? false;
    },

    async status(user: Pick<UserRecord, 'id' | 'role'>): Promise<TwoFactorStatus> {
      const [record, settings] = await Promise.all([store.get(user.id), deps.settings.get()]);
      const enabled = record?.enabled ?? false;
      return {
        enabled,
        enrolmentRequired: !enabled && user.role === 'admin' && settings.requireAdminTwoFactor,
        recoveryCodesLeft: enabled ? record!.recoveryCodes.length : 0,
      };
    },

    /** A new secret, shown once as a QR code and as text; two-factor sign-in is off until confirmed. */
    async startEnrolment(userId: string) {
      const user = await load(userId);
      const secret = new Secret({ size: 20 });
      if (!(await store.startEnrolment(user.id, vault.seal(secret.base32))))
        throw conflict('Two-factor sign-in is already on. Turn it off first to set up a new authenticator.');
      const otpauthUrl = totpOf(secret, user.email).toString();
      const svg = await QRCode.toString(otpauthUrl, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
      return {
        secret: secret.base32,
        otpauthUrl,
        qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
      };
    },

    /** The first valid code turns it on; the recovery codes are answered this once and kept as HMACs. */
    async confirmEnrolment(userId: string, given: string): Promise<string[]> {
      const record = await store.get(userId);
      if (!record) throw conflict('Start the two-factor set-up first.');
      if (record.enabled) throw conflict('Two-factor sign-in is already on.');
      const code = normaliseSecondFactorCode(given);
      const step = TOTP_CODE.test(code) ? stepOf(record.secretSealed, code) : null;
      if (step === null) throw codeInvalid();
      const { codes, hashes } = await newRecoveryCodes();
      if (!(await store.enable(userId, record.secretSealed, { step, now: now() }, hashes)))
        throw conflict('Two-factor sign-in is already on.');
      await events.publish('auth.user.two_factor_enabled', { userId });
      return codes;
    },

    async disable(userId: string): Promise<void> {
      const record = await store.get(userId);
      await store.remove(userId);
      if (record?.enabled) await events.publish('auth.user.two_factor_disabled', { userId });
    },

    async regenerateRecoveryCodes(userId: string): Promise<string[]> {
      const { codes, hashes } = await newRecoveryCodes();
      if (!(await store.setRecoveryCodes(userId, hashes)))
        throw conflict('Two-factor sign-in is off: there are no recovery codes to replace.');
      await events.publish('auth.user.recovery_codes_regenerated', { userId });
      return codes;
    },

    /** The sign-in's second step is due: a challenge bound to this user and this password check. */
    challengeFor: (user: UserRecord) =>
      deps.tokens.challenge({
        userId: user.id,
        sessionVersion: user.sessionVersion,
        passwordCheck: passwordCheckOf(user),
      }),

    /**
     * The user a challenge and a second factor sign in. The challenge must be unexpired and still
     * match the account (a password change or reset in between voids it).
     */
    async completeSignIn(challenge: string, code: string): Promise<UserRecord> {
      const binding = deps.tokens.readChallenge(challenge);
      const user = binding ? await deps.users.get(binding.userId) : null;
      if (
        !binding ||
        !user ||
        user.sessionVersion !== binding.sessionVersion ||
        passwordCheckOf(user) !== binding.passwordCheck
      )
        throw unauthenticated(CHALLENGE_EXPIRED);
      // Deactivated since the password step: refused as the password step would refuse it now.
      if (user.status === 'inactive') throw forbidden(ACCOUNT_INACTIVE_MESSAGE, 'ACCOUNT_INACTIVE');
      await verify(user.id, code);
      return user;
    },

    /** A step-up token for this session, after a fresh second factor. */
    async stepUp(userId: string, sessionId: string, code: string) {
      await verify(userId, code);
      return deps.tokens.stepUp(userId, sessionId);
    },

    policy: () => deps.settings.get(),

    async setPolicy(actorId: string, requireAdminTwoFactor: boolean) {
      const before = await deps.settings.get();
      await deps.settings.set({ requireAdminTwoFactor });
      if (before.requireAdminTwoFactor !== requireAdminTwoFactor)
        await events.publish('auth.security.admin_two_factor_changed', {
          userId: actorId,
          requireAdminTwoFactor,
        });
      return { requireAdminTwoFactor };
    },
  };
}
export type TwoFactor = ReturnType<typeof twoFactor>;
