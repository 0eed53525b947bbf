import {
  ACCOUNT_INACTIVE_MESSAGE,
  AppError,
  forbidden,
  readSessionToken,
  role,
  unauthenticated,
  type Session,
} from '@coffer/common';
import { LIMITS } from '@coffer/contracts';
import { auth } from '@coffer/proto';

export interface Caller {
  id: string;
  role: string;
  email: string;
  name: string;
  /** The session a token names (absent for an agent's API key). */
  session?: Session;
  /** Two-factor sign-in is on: destructive actions need a step-up. */
  twoFactorEnabled?: boolean;
  /** An admin the site requires to use two-factor sign-in, not enrolled yet: no admin operation until then. */
  twoFactorEnrolmentRequired?: boolean;
}

/** An agent calling with its owner's API key. */
export interface AgentCaller extends Caller {
  agentId: string;
}

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,4096})$/;

/**
 * Who is calling: the JWT is verified here without a round trip; the account's current state
 * (ban, role, sessions ended by a reset) comes from auth and is cached for a few seconds.
 */
export function identity(deps: {
  jwtSecret: string;
  cacheMs: number;
  accountState: (userId: string) => Promise<auth.AccountState>;
  resolveApiKey: (apiKey: string) => Promise<auth.AccountState>;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  const cache = new Map<string, { state: auth.AccountState; until: number }>();

  async function state(userId: string): Promise<auth.AccountState> {
    const hit = cache.get(userId);
    if (hit && hit.until > now()) return hit.state;
    try {
      const s = await deps.accountState(userId);
      if (cache.size > 10_000) cache.clear();
      cache.set(userId, { state: s, until: now() + deps.cacheMs });
      return s;
    } catch (err) {
      if (err instanceof AppError && err.kind === 'NOT_FOUND')
        throw unauthenticated('Account no longer exists');
      throw err;
    }
  }

  const sessionOf = (token: string): Session => readSessionToken(token, deps.jwtSecret);

  /** Whether the account's state still admits the session (version and sign-out; not the ban). */
  const refuseEnded = (session: Session, s: auth.AccountState) => {
    if (session.version !== s.sessionVersion || s.endedSessions.includes(session.id))
      throw unauthenticated('Session expired');
  };

  // Banned first: a banned account sees the suspended page whatever its status.
  const refuseBanned = (s: auth.AccountState) => {
    if (s.isBanned) {
      throw forbidden('Your account has been suspended', 'ACCOUNT_BANNED', {
        isBanned: true,
        banReason: s.banReason ?? null,
        bannedAt: s.bannedAt ?? null,
      });
    }
    if (s.status === auth.AccountStatus.ACCOUNT_STATUS_INACTIVE) {
      throw forbidden(ACCOUNT_INACTIVE_MESSAGE, 'ACCOUNT_INACTIVE');
    }
  };

  return {
    /** Drops the cached state so a change made through this gateway shows at once. */
    forget: (userId: string) => cache.delete(userId),

    /**
     * The caller a session token names. `fresh` reads the account from auth rather than the cache
     * (a socket's handshake: the socket outlives any cache). `evenIfSuspended` admits a banned or
     * inactive account (signing out is always allowed).
     */
    async fromToken(
      token: string | undefined,
      opts: { fresh?: boolean; evenIfSuspended?: boolean } = {},
    ): Promise<Caller> {
      if (!token) throw unauthenticated('Authentication required');
      const session = sessionOf(token);
      if (opts.fresh) cache.delete(session.userId);
      let s = await state(session.userId);
      // A token newer than the cached state (a password changed through another gateway a moment
      // ago) means the cache is stale, not the token: ask auth again.
      if (session.version > s.sessionVersion) {
        cache.delete(session.userId);
        s = await state(session.userId);
      }
      refuseEnded(session, s);
      if (!opts.evenIfSuspended) refuseBanned(s);
      return {
        id: s.userId,
        role: role.fromAnswer(s.role),
        email: s.email,
        name: s.name,
        session,
        twoFactorEnabled: s.twoFactorEnabled,
        twoFactorEnrolmentRequired: s.twoFactorEnrolmentRequired,
      };
    },

    /**
     * A test of sessions against the account as auth has it now (not the cache): false for a
     * session ended by sign-out, a password change or reset, for a banned, inactive or deleted
     * account, and for an expired token. Open sockets are checked with it when something ended.
     */
    async sessionTest(userId: string): Promise<(session: Session) => boolean> {
      cache.delete(userId);
      let s: auth.AccountState;
      try {
        s = await state(userId);
      } catch (err) {
        if (err instanceof AppError && err.kind === 'UNAUTHENTICATED') return () => false;
        throw err;
      }
      return (session) => {
        try {
          refuseEnded(session, s);
          refuseBanned(s);
          return session.expiresAt > now();
        } catch {
          return false;
        }
      };
    },

    /** An agent's identity: its owner's API key (looked up by auth) and the agent id it was given. */
    async fromApiKey(apiKey: string | undefined, agentId = ''): Promise<AgentCaller> {
      if (!apiKey || apiKey.length > LIMITS.apiKey) throw unauthenticated('Invalid API key');
      const s = await deps.resolveApiKey(apiKey);
      refuseBanned(s);
      return { id: s.userId, role: role.fromAnswer(s.role), email: s.email, name: s.name, agentId };
    },

    bearer(header: string | undefined): string | undefined {
      if (!header) return undefined;
      const m = BEARER.exec(header);
      if (!m) throw unauthenticated('Invalid or expired token');
      return m[1];
    },
  };
}
export type Identity = ReturnType<typeof identity>;

/**
 * Call options that pass the caller's own session token on, for the services that check for
 * themselves who acts in an admin action (auth, the orchestrator, kb): the gateway's role check
 * is not enough for them.
 */
export const passSession = (
  identity: Pick<Identity, 'bearer'>,
  req: { headers: { authorization?: string } },
): { userToken: string | undefined } => ({ userToken: identity.bearer(req.headers.authorization) });
