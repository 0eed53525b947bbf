import { badInput, cursorOf, notFound, type Page } from '@coffer/common';
import type { AuthEvents } from '../events.js';
import type { ResetTokenStore, TwoFactorStore, UserPatch, UserRecord, UserStore } from '../store/types.js';
import type { Accounts } from './accounts.js';
import type { Billing } from './billing.js';
import type { Plans } from './plans.js';

export const DEFAULT_BAN_REASON = 'Policy violation';
/** Users in a page asked for with `before` alone. */
const ADMIN_PAGE_SIZE = 50;

/** Admin user management (product §7 /api/admin/users...). Admins cannot lock themselves out. */
export function admin(deps: {
  users: Pick<UserStore, 'list' | 'get' | 'update' | 'remove'>;
  resetTokens: Pick<ResetTokenStore, 'removeForUser'>;
  twoFactor: Pick<TwoFactorStore, 'remove'>;
  accounts: Pick<Accounts, 'load' | 'updateProfile'>;
  plans: Pick<Plans, 'byId' | 'assign'>;
  /** Cancels a deleted account's paid subscription at the provider. */
  billing?: Pick<Billing, 'cancelForDeletedUser'>;
  events: AuthEvents;
  now?: () => Date;
}) {
  const { users } = deps;
  const now = deps.now ?? (() => new Date());

  const refuseSelf = (actorId: string, userId: string, what: string) => {
    if (actorId === userId) throw badInput(`You cannot ${what} your own account`);
  };

  return {
    /** Every user, newest first; or one page of them (services/common/src/paging.ts). */
    async list(page?: Page): Promise<UserRecord[]> {
      if (!page || (page.limit === undefined && page.before === undefined)) return users.list();
      const before = await cursorOf(users, null, page.before, 'user');
      return users.list({ limit: page.limit ?? ADMIN_PAGE_SIZE, before });
    },

    async update(
      actorId: string,
      userId: string,
      patch: { plan?: string; role?: 'user' | 'admin'; status?: 'active' | 'inactive'; email?: string },
    ): Promise<UserRecord> {
      const before = await deps.accounts.load(userId);
      if (patch.role !== undefined && patch.role !== 'admin')
        refuseSelf(actorId, userId, 'remove the admin role from');
      if (patch.status === 'inactive') refuseSelf(actorId, userId, 'deactivate');
      if (patch.plan !== undefined)
        await deps.plans.assign(userId, await deps.plans.byId(patch.plan), { actorId, email: before.email });
      if (patch.email !== undefined)
        await deps.accounts.updateProfile(userId, { email: patch.email }, { byAdmin: true });
      const set: UserPatch = {};
      if (patch.role !== undefined) set.role = patch.role;
      if (patch.status !== undefined) set.status = patch.status;
      if (Object.keys(set).length) await users.update(userId, set);
      const after = await deps.accounts.load(userId);
      // Only real changes are announced: audit writes them in the acting admin's log.
      if (after.role !== before.role)
        await deps.events.publish('auth.user.role_changed', {
          userId,
          email: after.email,
          role: after.role,
          actorId,
        });
      if (after.status !== before.status)
        await deps.events.publish('auth.user.status_changed', {
          userId,
          email: after.email,
          status: after.status,
          actorId,
        });
      return after;
    },

    async setBan(actorId: string, userId: string, isBanned: boolean, banReason?: string) {
      const { email } = await deps.accounts.load(userId);
      if (isBanned) refuseSelf(actorId, userId, 'ban');
      const reason = isBanned ? banReason?.trim() || DEFAULT_BAN_REASON : null;
      const bannedAt = isBanned ? now() : null;
      await users.update(userId, { isBanned, banReason: reason, bannedAt });
      await deps.events.publish('auth.user.ban_changed', {
        userId,
        isBanned,
        banReason: reason,
        actorId,
        email,
      });
      return { isBanned, banReason: reason, bannedAt };
    },

    /**
     * Deletes the account; every other service removes what it holds of the user when the event
     * arrives (docs/architecture.md, "Deleting an account"). The order makes a crash at any step
     * recoverable by deleting again: the API key stops working first (no agent can come back and
     * re-register while the others clean up), the event is published before the account goes (an
     * account that is gone was always announced), and the event's id is the user's, so a retry
     * inside JetStream's duplicate window is dropped and a later one only repeats idempotent work.
     */
    async remove(actorId: string, userId: string): Promise<void> {
      refuseSelf(actorId, userId, 'delete');
      const user = await deps.accounts.load(userId);
      await users.update(user.id, { apiKeyHash: `deleted:${user.id}` });
      await deps.events.publish(
        'auth.user.deleted',
        { userId: user.id, actorId, email: user.email },
        { id: `auth.user.deleted:${user.id}` },
      );
      await deps.resetTokens.removeForUser(user.id);
      await deps.twoFactor.remove(user.id);
      if (!(await users.remove(user.id))) throw notFound('User not found');
      // After the removal: a deletion that failed must not have cost the user their subscription.
      await deps.billing?.cancelForDeletedUser(user.id);
    },
  };
}
export type Admin = ReturnType<typeof admin>;
