import jwt from 'jsonwebtoken';
import { ACCOUNT_INACTIVE_MESSAGE, AppError, forbidden, role, unauthenticated } from '@coffer/common';
import { auth } from '@coffer/proto';

export interface Caller {
  id: string;
  role: string;
  email: string;
  name: string;
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

    async fromToken(token: string | undefined): Promise<Caller> {
      if (!token) throw unauthenticated('Authentication required');
      let claims: jwt.JwtPayload;
      try {
        claims = jwt.verify(token, deps.jwtSecret, { algorithms: ['HS256'] }) as jwt.JwtPayload;
      } catch {
        throw unauthenticated('Invalid or expired token');
      }
      if (typeof claims.sub !== 'string') throw unauthenticated('Invalid or expired token');
      const sv = typeof claims.sv === 'number' ? claims.sv : 0;
      let s = await state(claims.sub);
      // A token newer than the cached state (a password changed through another gateway a moment
      // ago) means the cache is stale, not the token: ask auth again.
      if (sv > s.sessionVersion) {
        cache.delete(claims.sub);
        s = await state(claims.sub);
      }
      if (sv !== s.sessionVersion) throw unauthenticated('Session expired');
      refuseBanned(s);
      return { id: s.userId, role: role.fromAnswer(s.role), email: s.email, name: s.name };
    },

    /** An agent's identity: its owner's API key (looked up by auth) and the agent id it was given. */
    async fromApiKey(apiKey: string | undefined, agentId = ''): Promise<AgentCaller> {
      if (!apiKey || apiKey.length > 200) throw unauthenticated('Invalid API key');
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
