import { badInput, notFound } from '@coffer/common';
import type { AuthEvents } from '../events.js';
import type { UserPatch, UserRecord, UserStore } from '../store/types.js';
import type { Accounts } from './accounts.js';
import type { Plans } from './plans.js';

export const DEFAULT_BAN_REASON = 'Policy violation';

/** Admin user management (spec §7 /api/admin/users...). Admins cannot lock themselves out. */
export function admin(deps: {
  users: Pick<UserStore, 'list' | 'update' | 'remove'>;
  accounts: Pick<Accounts, 'load' | 'updateProfile'>;
  plans: Pick<Plans, 'byId' | 'assign'>;
  events: AuthEvents;
  now?: () => Date;
}) {
  const { users } = deps;
  const now = deps.now ?? (() => new Date());

  const refuseSelf = (actorId: string, userId: string, what: string) => {
    if (actorId === userId) throw badInput(`You cannot ${what} your own account`);
  };

  return {
    async list(): Promise<UserRecord[]> {
      return users.list();
    },

    async update(
      actorId: string,
      userId: string,
      patch: { plan?: string; role?: 'user' | 'admin'; status?: 'active' | 'inactive'; email?: string },
    ): Promise<UserRecord> {
      await deps.accounts.load(userId);
      if (patch.role !== undefined && patch.role !== 'admin')
        refuseSelf(actorId, userId, 'remove the admin role from');
      if (patch.status === 'inactive') refuseSelf(actorId, userId, 'deactivate');
      if (patch.plan !== undefined) await deps.plans.assign(userId, await deps.plans.byId(patch.plan));
      if (patch.email !== undefined) await deps.accounts.updateProfile(userId, { email: patch.email });
      const set: UserPatch = {};
      if (patch.role !== undefined) set.role = patch.role;
      if (patch.status !== undefined) set.status = patch.status;
      if (Object.keys(set).length) await users.update(userId, set);
      return deps.accounts.load(userId);
    },

    async setBan(actorId: string, userId: string, isBanned: boolean, banReason?: string) {
      await deps.accounts.load(userId);
      if (isBanned) refuseSelf(actorId, userId, 'ban');
      const reason = isBanned ? banReason?.trim() || DEFAULT_BAN_REASON : null;
      const bannedAt = isBanned ? now() : null;
      await users.update(userId, { isBanned, banReason: reason, bannedAt });
      await deps.events.publish('auth.user.ban_changed', { userId, isBanned, banReason: reason, actorId });
      return { isBanned, banReason: reason, bannedAt };
    },

    async remove(actorId: string, userId: string): Promise<void> {
      refuseSelf(actorId, userId, 'delete');
      if (!(await users.remove((await deps.accounts.load(userId)).id))) throw notFound('User not found');
      await deps.events.publish('auth.user.deleted', { userId, actorId });
    },
  };
}
export type Admin = ReturnType<typeof admin>;
