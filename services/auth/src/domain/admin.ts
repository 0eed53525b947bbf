import { badInput, notFound } from '@coffer/common';
import type { AuthModels, UserDoc } from '../model.js';
import type { AuthEvents } from '../events.js';
import type { Accounts } from './accounts.js';
import type { Plans } from './plans.js';

export const DEFAULT_BAN_REASON = 'Policy violation';

/** Admin user management (spec §7 /api/admin/users...). Admins cannot lock themselves out. */
export function admin(deps: {
  models: Pick<AuthModels, 'User'>;
  accounts: Pick<Accounts, 'load' | 'updateProfile'>;
  plans: Pick<Plans, 'byId' | 'assign'>;
  events: AuthEvents;
}) {
  const { User } = deps.models;

  const refuseSelf = (actorId: string, userId: string, what: string) => {
    if (actorId === userId) throw badInput(`You cannot ${what} your own account`);
  };

  return {
    async list(): Promise<UserDoc[]> {
      return User.find().sort({ createdAt: -1 }).lean<UserDoc[]>();
    },

    async update(
      actorId: string,
      userId: string,
      patch: { plan?: string; role?: string; status?: string; email?: string },
    ): Promise<UserDoc> {
      await deps.accounts.load(userId);
      if (patch.role !== undefined && patch.role !== 'admin')
        refuseSelf(actorId, userId, 'remove the admin role from');
      if (patch.status === 'inactive') refuseSelf(actorId, userId, 'deactivate');
      if (patch.plan !== undefined) await deps.plans.assign(userId, await deps.plans.byId(patch.plan));
      if (patch.email !== undefined) await deps.accounts.updateProfile(userId, { email: patch.email });
      const set: Record<string, string> = {};
      if (patch.role !== undefined) set.role = patch.role;
      if (patch.status !== undefined) set.status = patch.status;
      if (Object.keys(set).length) await User.updateOne({ _id: userId }, { $set: set });
      return deps.accounts.load(userId);
    },

    async setBan(actorId: string, userId: string, isBanned: boolean, banReason?: string) {
      await deps.accounts.load(userId);
      if (isBanned) refuseSelf(actorId, userId, 'ban');
      const reason = isBanned ? banReason?.trim() || DEFAULT_BAN_REASON : null;
      const bannedAt = isBanned ? new Date() : null;
      await User.updateOne({ _id: userId }, { $set: { isBanned, banReason: reason, bannedAt } });
      await deps.events.publish('auth.user.ban_changed', { userId, isBanned, banReason: reason, actorId });
      return { isBanned, banReason: reason, bannedAt };
    },

    async remove(actorId: string, userId: string): Promise<void> {
      refuseSelf(actorId, userId, 'delete');
      const res = await User.deleteOne({ _id: (await deps.accounts.load(userId))._id });
      if (res.deletedCount !== 1) throw notFound('User not found');
      await deps.events.publish('auth.user.deleted', { userId, actorId });
    },
  };
}
