import { accountStatus, role } from '@coffer/common';
import type { auth } from '@coffer/proto';
import type { UserRecord } from '../store/types.js';
import type { ApiKeyVault } from './secrets.js';

/** The shapes auth answers with; built field by field so a new record field never leaks (value sets as enums). */
export function views(vault: ApiKeyVault) {
  return {
    user: (u: UserRecord): auth.User => ({
      id: u.id,
      email: u.email,
      name: u.name,
      role: role.toProto(u.role),
      apiKey: vault.unseal(u.apiKeySealed),
      isBanned: u.isBanned,
      banReason: u.banReason ?? undefined,
      bannedAt: u.bannedAt?.toISOString(),
    }),
    profile: (u: UserRecord): auth.Profile => ({
      id: u.id,
      name: u.name,
      email: u.email,
      plan: u.plan,
      apiKey: vault.unseal(u.apiKeySealed),
      role: role.toProto(u.role),
    }),
    /**
     * `endedSessions`: the user's signed-out sessions whose tokens have not expired (none for
     * agents); `twoFactor`: whether step-up applies and whether an admin must enrol first.
     */
    accountState: (
      u: UserRecord,
      endedSessions: string[] = [],
      twoFactor: { enabled: boolean; enrolmentRequired: boolean } = {
        enabled: false,
        enrolmentRequired: false,
      },
    ): auth.AccountState => ({
      userId: u.id,
      role: role.toProto(u.role),
      isBanned: u.isBanned,
      banReason: u.banReason ?? undefined,
      bannedAt: u.bannedAt?.toISOString(),
      status: accountStatus.toProto(u.status),
      email: u.email,
      name: u.name,
      sessionVersion: u.sessionVersion,
      endedSessions,
      twoFactorEnabled: twoFactor.enabled,
      twoFactorEnrolmentRequired: twoFactor.enrolmentRequired,
    }),
    adminUser: (u: UserRecord): auth.AdminUser => ({
      id: u.id,
      email: u.email,
      name: u.name,
      role: role.toProto(u.role),
      status: accountStatus.toProto(u.status),
      plan: u.plan,
      isBanned: u.isBanned,
      banReason: u.banReason ?? undefined,
      bannedAt: u.bannedAt?.toISOString(),
      createdAt: u.createdAt.toISOString(),
    }),
  };
}
export type Views = ReturnType<typeof views>;
