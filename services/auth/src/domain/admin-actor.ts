import { AppError, forbidden, readSessionToken, unauthenticated } from '@coffer/common';
import type { Accounts } from './accounts.js';
import type { Sessions } from './sessions.js';

/**
 * Who performs an admin action: the user of the session token the gateway passed on, read with the
 * gateway's own rules (readSessionToken) and accepted only while that account is a current,
 * unbanned, active admin whose session has not been signed out. Never a field of the request: a
 * caller can only act as an admin whose session it carries. The other services' admin
 * actions ask the same through VerifyAdmin.
 */
export function adminActor(deps: {
  jwtSecret: string;
  accounts: Pick<Accounts, 'load'>;
  sessions: Pick<Sessions, 'ended'>;
}) {
  return async (token: string | undefined): Promise<{ id: string; name: string }> => {
    if (!token) throw unauthenticated('Sign in as an administrator to do this');
    const session = readSessionToken(token, deps.jwtSecret);
    const user = await deps.accounts.load(session.userId).catch((err: unknown) => {
      throw err instanceof AppError && err.kind === 'NOT_FOUND'
        ? unauthenticated('Account no longer exists')
        : err;
    });
    if (session.version !== user.sessionVersion) throw unauthenticated('Session expired');
    if ((await deps.sessions.ended(user.id)).includes(session.id)) throw unauthenticated('Session expired');
    if (user.isBanned || user.status !== 'active' || user.role !== 'admin')
      throw forbidden('Admin access required');
    return { id: user.id, name: user.name };
  };
}
export type AdminActor = ReturnType<typeof adminActor>;
