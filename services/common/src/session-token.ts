import jwt from 'jsonwebtoken';
import { unauthenticated } from './errors.js';

/** One sign-in's session, as its token names it. */
export interface Session {
  userId: string;
  /** The token's `sid`: signing out ends this session alone. */
  id: string;
  /** The session version the token was issued with (a password change or reset moves it on). */
  version: number;
  /** When the token expires, in ms since the epoch. */
  expiresAt: number;
}

/**
 * The session a session token names, its HS256 signature and expiry checked with the secret auth
 * signs sessions with. The gateway reads every request's token with it, and auth the admin session
 * a call carries: both must refuse the same tokens.
 */
export function readSessionToken(token: string, secret: string): Session {
  let claims: jwt.JwtPayload;
  try {
    claims = jwt.verify(token, secret, { algorithms: ['HS256'] }) as jwt.JwtPayload;
  } catch {
    throw unauthenticated('Invalid or expired token');
  }
  // jsonwebtoken accepts a token without `exp` for ever; auth never issues one, so it is forged
  // or from before sessions had ids (those users sign in once more).
  if (
    typeof claims.sub !== 'string' ||
    typeof claims.exp !== 'number' ||
    typeof claims.sid !== 'string' ||
    typeof claims.sv !== 'number' ||
    // A sign-in challenge or a step-up token is never a session.
    claims.typ !== undefined
  )
    throw unauthenticated('Invalid or expired token');
  return { userId: claims.sub, id: claims.sid, version: claims.sv, expiresAt: claims.exp * 1000 };
}
