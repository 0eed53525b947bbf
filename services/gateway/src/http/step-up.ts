import type { Request } from 'express';
import jwt from 'jsonwebtoken';
import {
  SIGN_IN_CHALLENGE_TYPE,
  STEP_UP_CODE_HEADER,
  STEP_UP_TOKEN_HEADER,
  STEP_UP_TOKEN_TYPE,
} from '@coffer/contracts';
import { badInput, forbidden, unauthenticated } from '@coffer/common';
import type { GatewayConfig } from '../config.js';
import type { Caller } from './identity.js';
import type { RateLimiter } from './rate-limit.js';

export const STEP_UP_NEEDED =
  'This action needs your two-factor code. Enter the current code from your authenticator app.';
export const SIGN_IN_EXPIRED = 'This sign-in has expired. Please sign in again with your email and password.';

/** The claims of a token of one `typ` signed with the session secret, or null. */
function claimsOf(secret: string, token: string, typ: string): jwt.JwtPayload | null {
  try {
    const c = jwt.verify(token, secret, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    return c.typ === typ && typeof c.sub === 'string' && typeof c.exp === 'number' ? c : null;
  } catch {
    return null;
  }
}

/**
 * Second-factor attempts, counted per account wherever they come from (sign-in's second step,
 * step-up, enrolment): six digits must not be guessable by trying.
 */
export function secondFactorAttempts(
  rateLimit: RateLimiter,
  config: Pick<GatewayConfig, 'RATE_2FA_PER_USER'>,
) {
  return (userId: string) =>
    rateLimit(
      [{ key: `2fa:user:${userId}`, limit: config.RATE_2FA_PER_USER }],
      'Too many two-factor code attempts. Please wait a few minutes and try again.',
    );
}

/** The account a sign-in challenge names (checked, unexpired), for counting its code attempts. */
export function challengeSubject(secret: string, challenge: string): string {
  const c = claimsOf(secret, challenge, SIGN_IN_CHALLENGE_TYPE);
  if (!c) throw unauthenticated(SIGN_IN_EXPIRED);
  return c.sub!;
}

/**
 * Step-up: with two-factor sign-in on, a destructive action needs the second factor again, as a
 * step-up token of this very session (X-Coffer-Step-Up, from POST /api/auth/step-up) or a current
 * code (X-Coffer-2FA, used up like any code). Without either the answer is 403 STEP_UP_REQUIRED,
 * which the web app answers with a dialog asking for the code. Routes ask for it with `stepUp: true`.
 */
const MAX_CODE_LENGTH = 32;

export function stepUpGuard(deps: {
  jwtSecret: string;
  attempts: (userId: string) => Promise<unknown>;
  verifyCode: (userId: string, code: string) => Promise<void>;
}) {
  return async function requireStepUp(caller: Caller, req: Request): Promise<void> {
    if (!caller.twoFactorEnabled) return;
    const token = req.header(STEP_UP_TOKEN_HEADER);
    if (token) {
      const c = claimsOf(deps.jwtSecret, token, STEP_UP_TOKEN_TYPE);
      if (c && c.sub === caller.id && c.sid === caller.session?.id) return;
    }
    const code = req.header(STEP_UP_CODE_HEADER);
    if (code) {
      // Checked where it arrives: a code is six digits, a recovery code eleven characters.
      if (code.length > MAX_CODE_LENGTH)
        throw badInput(`${STEP_UP_CODE_HEADER} is too long: send the six digits from your authenticator app`);
      await deps.attempts(caller.id);
      await deps.verifyCode(caller.id, code);
      return;
    }
    throw forbidden(
      token ? 'Your confirmation has expired. Enter a new two-factor code.' : STEP_UP_NEEDED,
      'STEP_UP_REQUIRED',
    );
  };
}
export type StepUpGuard = ReturnType<typeof stepUpGuard>;
