import jwt from 'jsonwebtoken';

export interface TokenClaims {
  sub: string;
  role: string;
}

/** Issues the session JWT the gateway verifies on its own (HS256, with an expiry claim). */
export function tokenIssuer(secret: string, ttlSeconds: number) {
  return (userId: string, role: string): string =>
    jwt.sign({ role } satisfies Omit<TokenClaims, 'sub'>, secret, {
      algorithm: 'HS256',
      subject: userId,
      expiresIn: ttlSeconds,
    });
}
export type TokenIssuer = ReturnType<typeof tokenIssuer>;
