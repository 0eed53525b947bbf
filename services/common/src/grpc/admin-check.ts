import { auth } from '@coffer/proto';
import { unauthenticated } from '../errors.js';
import { grpcClient, USER_TOKEN_HEADER } from './client.js';
import type { ServiceIdentity } from './service-keys.js';

/** The admin an admin action acts for, as auth verified them. */
export interface VerifiedAdmin {
  id: string;
  name: string;
}

/**
 * Who acts in an admin action, from the user session token the call carries: asked of auth
 * (VerifyAdmin), the one service that can check a session. No token, an expired or signed-out
 * session, or a user who is not (or no longer) an active admin is refused with auth's own answer.
 */
export type AdminCheck = (userToken: string | undefined) => Promise<VerifiedAdmin>;

/** The user session token a gRPC call carries in its metadata (USER_TOKEN_HEADER), if any. */
export function userTokenOf(call: { metadata: { get(key: string): unknown[] } }): string | undefined {
  const v = call.metadata.get(USER_TOKEN_HEADER)[0];
  return typeof v === 'string' && v ? v : undefined;
}

/**
 * An AdminCheck that asks auth at `address`, one call per admin action (they are rare, and a
 * cached answer would outlive a ban or a sign-out). Signed as `identity`, which auth must allow
 * to call VerifyAdmin (ALLOWED_CALLERS).
 */
export function authAdminCheck(
  address: string,
  identity: ServiceIdentity,
): { check: AdminCheck; close(): void } {
  const client = grpcClient(auth.AuthServiceClient, address, { identity, callee: 'auth' });
  return {
    async check(userToken) {
      // Not worth a round trip: auth would refuse it the same way.
      if (!userToken) throw unauthenticated('Sign in as an administrator to do this');
      const a = await client.verifyAdmin({}, { userToken, timeoutMs: 5_000 });
      return { id: a.userId, name: a.name };
    },
    close: () => client.close(),
  };
}
