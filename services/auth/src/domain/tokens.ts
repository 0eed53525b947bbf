import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import { SIGN_IN_CHALLENGE_TYPE, STEP_UP_TOKEN_TYPE } from '@coffer/contracts';

export interface TokenClaims {
  sub: string;
  role: string;
  /** Session version: the gateway refuses tokens older than the account's current one. */
  sv: number;
  /** Session id, random per sign-in: signing out ends this session alone (its id is recorded as ended). */
  sid: string;
}

/** A fresh session id: 128 random bits, URL-safe. */
export const newSessionId = () => crypto.randomBytes(16).toString('base64url');

/**
 * Issues the session JWT the gateway verifies on its own (HS256, always with an expiry and a
 * session id: the gateway refuses a token without either). The one place tokens are made.
 */
export function tokenIssuer(secret: string, ttlSeconds: number) {
  return (user: { id: string; role: string; sessionVersion: number }): string =>
    jwt.sign(
      { role: user.role, sv: user.sessionVersion, sid: newSessionId() } satisfies Omit<TokenClaims, 'sub'>,
      secret,
      { algorithm: 'HS256', subject: user.id, expiresIn: ttlSeconds },
    );
}
export type TokenIssuer = ReturnType<typeof tokenIssuer>;

/**
 * The short-lived tokens of two-factor sign-in. Each carries a `typ` a session token never has, and
 * none carries `sv`, so the gateway can never take one for a session (it requires `sv` and refuses
 * any `typ`), nor a session token for one of these.
 */
export const TOKEN_TYPES = { challenge: SIGN_IN_CHALLENGE_TYPE, stepUp: STEP_UP_TOKEN_TYPE } as const;

/** How long the second step of a sign-in and a step-up confirmation stay valid. */
export const CHALLENGE_TTL_SECONDS = 5 * 60;
export const STEP_UP_TTL_SECONDS = 5 * 60;

/** What a sign-in challenge is bound to: the user, their session version and the password checked. */
export interface ChallengeBinding {
  userId: string;
  sessionVersion: number;
  /** A digest of the password hash that was checked: a password change voids the challenge. */
  passwordCheck: string;
}

/**
 * The sign-in challenge (password checked, second factor still due) and the step-up token (a
 * second factor given again within this session), both HS256 with the session secret.
 */
export function twoFactorTokens(secret: string, now: () => Date = () => new Date()) {
  const sign = (claims: object, subject: string, ttl: number) =>
    jwt.sign({ ...claims, iat: Math.floor(now().getTime() / 1000) }, secret, {
      algorithm: 'HS256',
      subject,
      expiresIn: ttl,
    });
  const read = (token: string, typ: string): jwt.JwtPayload | null => {
    try {
      const c = jwt.verify(token, secret, {
        algorithms: ['HS256'],
        clockTimestamp: Math.floor(now().getTime() / 1000),
      }) as jwt.JwtPayload;
      return c.typ === typ && typeof c.sub === 'string' && typeof c.exp === 'number' ? c : null;
    } catch {
      return null;
    }
  };
  return {
    challenge: (b: ChallengeBinding) =>
      sign(
        { typ: TOKEN_TYPES.challenge, csv: b.sessionVersion, pwc: b.passwordCheck },
        b.userId,
        CHALLENGE_TTL_SECONDS,
      ),
    /** The binding a valid, unexpired challenge names; null for anything else. */
    readChallenge(token: string): ChallengeBinding | null {
      const c = read(token, TOKEN_TYPES.challenge);
      if (!c || typeof c.csv !== 'number' || typeof c.pwc !== 'string') return null;
      return { userId: c.sub!, sessionVersion: c.csv, passwordCheck: c.pwc };
    },
    stepUp(userId: string, sessionId: string) {
      const expiresAt = new Date(now().getTime() + STEP_UP_TTL_SECONDS * 1000);
      return {
        token: sign({ typ: TOKEN_TYPES.stepUp, sid: sessionId }, userId, STEP_UP_TTL_SECONDS),
        expiresAt,
      };
    },
  };
}
export type TwoFactorTokens = ReturnType<typeof twoFactorTokens>;
