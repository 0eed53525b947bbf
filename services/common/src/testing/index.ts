// Test doubles other packages' tests share. Kept out of the shipped build (tsconfig.build.json
// leaves `testing/` out) and reached only through the `@coffer/common/testing` entry point.
import { forbidden, unauthenticated } from '../errors.js';
import type { AdminCheck, VerifiedAdmin } from '../grpc/admin-check.js';

/**
 * For tests of the services that ask auth: answers like VerifyAdmin, `admins` by token; a token
 * in `users` is a signed-in non-admin (FORBIDDEN), any other or none is UNAUTHENTICATED.
 */
export function fakeAdminCheck(
  admins: Record<string, VerifiedAdmin>,
  users: readonly string[] = [],
): AdminCheck & { calls: Array<string | undefined> } {
  const calls: Array<string | undefined> = [];
  const check = async (token: string | undefined) => {
    calls.push(token);
    const admin = token === undefined ? undefined : admins[token];
    if (admin) return admin;
    if (token !== undefined && users.includes(token)) throw forbidden('Admin access required');
    throw unauthenticated('Invalid or expired token');
  };
  return Object.assign(check, { calls });
}
export { ferretDbPerCase } from './contract-db.js';
export { copyRecord, duplicateKeyError, nextHexId } from './fake-records.js';
