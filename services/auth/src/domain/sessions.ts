import type { EndedSessionStore } from '../store/types.js';

/**
 * Sessions signed out on the server: a token's `sid` is recorded as ended until the token would
 * have expired anyway, and the gateway refuses the tokens of an ended session (it reads them with
 * the account state).
 */
export function sessions(deps: {
  store: EndedSessionStore;
  /** The longest a token lives: no record needs to outlive it, whatever expiry the caller names. */
  maxTtlSeconds: number;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());
  return {
    async end(userId: string, sessionId: string, expiresAt: Date): Promise<void> {
      const t = now();
      // An expired token is refused anyway: nothing to record.
      if (expiresAt <= t) return;
      const latest = new Date(t.getTime() + deps.maxTtlSeconds * 1000);
      await deps.store.add({ userId, sessionId, expiresAt: expiresAt > latest ? latest : expiresAt });
      // Records whose tokens have expired go by query (FerretDB has no TTL indexes).
      await deps.store.removeExpired(t);
    },

    /** The user's ended sessions whose tokens have not expired yet. */
    ended: (userId: string): Promise<string[]> => deps.store.activeFor(userId, now()),
  };
}
export type Sessions = ReturnType<typeof sessions>;
