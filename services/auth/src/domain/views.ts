import type { auth } from '@coffer/proto';
import type { UserDoc } from '../model.js';
import type { ApiKeyVault } from './secrets.js';

/** The shapes auth answers with; built field by field so a new model field never leaks. */
export function views(vault: ApiKeyVault) {
  return {
    user: (u: UserDoc): auth.User => ({
      id: u._id.toString(),
      email: u.email,
      name: u.name ?? '',
      role: u.role ?? 'user',
      apiKey: vault.unseal(u.apiKeySealed),
      isBanned: u.isBanned ?? false,
      banReason: u.banReason ?? undefined,
      bannedAt: u.bannedAt?.toISOString(),
    }),
    profile: (u: UserDoc): auth.Profile => ({
      id: u._id.toString(),
      name: u.name ?? '',
      email: u.email,
      plan: u.plan.toString(),
      apiKey: vault.unseal(u.apiKeySealed),
      role: u.role ?? 'user',
    }),
    accountState: (u: UserDoc): auth.AccountState => ({
      userId: u._id.toString(),
      role: u.role ?? 'user',
      isBanned: u.isBanned ?? false,
      banReason: u.banReason ?? undefined,
      bannedAt: u.bannedAt?.toISOString(),
      status: u.status ?? 'active',
      email: u.email,
      name: u.name ?? '',
      sessionVersion: u.sessionVersion ?? 0,
    }),
    adminUser: (u: UserDoc & { createdAt?: Date }): auth.AdminUser => ({
      id: u._id.toString(),
      email: u.email,
      name: u.name ?? '',
      role: u.role ?? 'user',
      status: u.status ?? 'active',
      plan: u.plan.toString(),
      isBanned: u.isBanned ?? false,
      banReason: u.banReason ?? undefined,
      bannedAt: u.bannedAt?.toISOString(),
      createdAt: (u.createdAt ?? new Date(0)).toISOString(),
    }),
  };
}
export type Views = ReturnType<typeof views>;
