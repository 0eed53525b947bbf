import jwt from 'jsonwebtoken';
import { AppError, forbidden, unauthenticated } from '@coffer/common';
import type { Accounts } from './accounts.js';
import type { Sessions } from './sessions.js';

/**
 * Who performs an admin action: the user of the session token the gateway passed on, checked here
 * with the secret auth signs tokens with, and only while that account is a current, unbanned,
 * active admin whose session has not been signed out. Never a field of the request: a caller can
 * only act as an admin whose session it carries. The other services' admin actions ask the same
 * through VerifyAdmin.
 */
export function adminActor(deps: {
  jwtSecret: string;
  accounts: Pick<Accounts, 'load'>;
  sessions: Pick<Sessions, 'ended'>;
}) {
  return async (token: string | undefined): Promise<{ id: string; name: string }> => {
    if (!token) throw unauthenticated('Sign in as an administrator to do this');
    let claims: jwt.JwtPayload;
    try {
      claims = jwt.verify(token, deps.jwtSecret, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    } catch {
      throw unauthenticated('Invalid or expired token');
    }
    // A session token, nothing else signed with the same secret (a sign-in challenge or a step-up
    // token carries `typ`), and one with every claim a session has.
    if (
      typeof claims.sub !== 'string' ||
      typeof claims.exp !== 'number' ||
      typeof claims.sid !== 'string' ||
      typeof claims.sv !== 'number' ||
      claims.typ !== undefined
    )
      throw unauthenticated('Invalid or expired token');
    const user = await deps.accounts.load(claims.sub).catch((err: unknown) => {
      throw err instanceof AppError && err.kind === 'NOT_FOUND'
        ? unauthenticated('Account no longer exists')
        : err;
    });
    if (claims.sv !== user.sessionVersion) throw unauthenticated('Session expired');
    if ((await deps.sessions.ended(user.id)).includes(claims.sid)) throw unauthenticated('Session expired');
    if (user.isBanned || user.status !== 'active' || user.role !== 'admin')
      throw forbidden('Admin access required');
    return { id: user.id, name: user.name };
  };
}
export type AdminActor = ReturnType<typeof adminActor>;
