// The admin console's pure logic (product §2 Admin dashboard, §4 user status and ban, §8 messages):
// what the list shows for a user, which users a search keeps, the summary counts, what a ban sends.
import type { AdminUser, Plan } from '../../api/generated';
import { serverMessage } from '../../lib/errors';

/** Product §9: the reason a ban gets when the admin leaves it blank. */
export const DEFAULT_BAN_REASON = 'Policy violation';

/** Product §5: the Delete User dialog's text. */
export const DELETE_USER_CONFIRMATION =
  "This action cannot be undone. All user data may be lost. Backups under the user's retention lock are kept until their retention date, then deleted.";

/** Product §8: the admin dashboard's inline red messages. */
export const ADMIN_ERRORS = {
  users: 'Failed to fetch users',
  stats: 'Failed to fetch stats',
  plans: 'Failed to fetch plans',
  load: 'Failed to load data',
  plan: 'Failed to change plan',
  role: 'Failed to update role',
  status: 'Failed to update status',
  ban: 'Failed to update ban status',
  email: 'Failed to update email',
  agent: 'Failed to delete agent',
  user: 'Failed to delete user',
} as const;

export type StatusLabel = 'active' | 'inactive' | 'banned';

/** A banned user shows as 'banned' whatever their status; a missing status means active (product §3, §4). */
export function statusLabel(user: Pick<AdminUser, 'isBanned' | 'status'>): StatusLabel {
  if (user.isBanned) return 'banned';
  return user.status === 'inactive' ? 'inactive' : 'active';
}

/** The plan's name for a plan id; the id itself while the catalogue is unknown or lacks it. */
export function planName(planId: string, plans: readonly Pick<Plan, '_id' | 'name'>[] | undefined): string {
  return plans?.find((p) => p._id === planId)?.name ?? planId;
}

/**
 * The users whose name, e-mail, role, plan name or shown status contains every word of the
 * search (case-insensitive), in the order given. A blank search keeps everyone.
 */
export function searchUsers<U extends AdminUser>(
  users: readonly U[],
  search: string,
  plans?: readonly Pick<Plan, '_id' | 'name'>[],
): U[] {
  const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [...users];
  return users.filter((u) => {
    const haystack = [u.name, u.email, u.role, planName(u.plan, plans), statusLabel(u)]
      .join(' ')
      .toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
}

export interface UserCounts {
  users: number;
  banned: number;
  /** status inactive, banned or not */
  inactive: number;
}

export function userCounts(users: readonly Pick<AdminUser, 'isBanned' | 'status'>[]): UserCounts {
  return {
    users: users.length,
    banned: users.filter((u) => u.isBanned).length,
    inactive: users.filter((u) => u.status === 'inactive').length,
  };
}

/** The body of PUT /api/admin/users/{id}/ban: a blank reason becomes the default, unban clears it. */
export function banBody(isBanned: boolean, reason: string): { isBanned: boolean; banReason: string | null } {
  return { isBanned, banReason: isBanned ? reason.trim() || DEFAULT_BAN_REASON : null };
}

/** The e-mail to save, or null when the trimmed value is empty or unchanged (product §5). */
export function emailToSave(input: string, current: string): string | null {
  const email = input.trim();
  return email && email !== current ? email : null;
}

export interface AdminError {
  /** the text of product §8 */
  title: string;
  /** why, when the server said (e.g. 'You cannot ban your own account') */
  detail?: string;
}

export function adminError(title: string, err: unknown): AdminError {
  const detail = serverMessage(err);
  return detail && detail !== title ? { title, detail } : { title };
}
