import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';

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
