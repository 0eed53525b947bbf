import jwt from 'jsonwebtoken';

export interface TokenClaims {
  sub: string;
  role: string;
  /** Session version: the gateway refuses tokens older than the account's current one. */
  sv: number;
}

/** Issues the session JWT the gateway verifies on its own (HS256, with an expiry claim). */
export function tokenIssuer(secret: string, ttlSeconds: number) {
  return (user: { id: string; role: string; sessionVersion: number }): string =>
    jwt.sign({ role: user.role, sv: user.sessionVersion } satisfies Omit<TokenClaims, 'sub'>, secret, {
      algorithm: 'HS256',
      subject: user.id,
      expiresIn: ttlSeconds,
    });
}
export type TokenIssuer = ReturnType<typeof tokenIssuer>;
