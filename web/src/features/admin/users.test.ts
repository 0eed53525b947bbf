import type { AdminUser } from '../../api/generated';
import {
  adminError,
  banBody,
  DEFAULT_BAN_REASON,
  emailToSave,
  planName,
  searchUsers,
  statusLabel,
  userCounts,
} from './users';

const user = (over: Partial<AdminUser>): AdminUser => ({
  _id: 'a'.repeat(24),
  email: 'ann@example.test',
  name: 'Ann Admin',
  role: 'user',
  status: 'active',
  plan: 'free',
  isBanned: false,
  banReason: null,
  bannedAt: null,
  createdAt: '2025-01-01T00:00:00.000Z',
  ...over,
});

const plans = [
  { _id: 'free', name: 'Free' },
  { _id: 'pro', name: 'Professional' },
];

describe('statusLabel', () => {
  it('shows banned whatever the status, else the status, a missing one as active', () => {
    expect(statusLabel(user({ isBanned: true, status: 'active' }))).toBe('banned');
    expect(statusLabel(user({ isBanned: true, status: 'inactive' }))).toBe('banned');
    expect(statusLabel(user({ status: 'inactive' }))).toBe('inactive');
    expect(statusLabel(user({ status: 'active' }))).toBe('active');
    expect(statusLabel(user({ status: '' }))).toBe('active');
  });
});

describe('searchUsers', () => {
  const ann = user({ _id: '1', name: 'Ann Smith', email: 'ann@example.test', plan: 'pro', role: 'admin' });
  const bob = user({ _id: '2', name: 'Bob Jones', email: 'bob@shop.test', isBanned: true });
  const cat = user({ _id: '3', name: 'Cat', email: 'cat@shop.test', status: 'inactive' });
  const all = [ann, bob, cat];

  it('keeps everyone for a blank search', () => {
    expect(searchUsers(all, '   ')).toEqual(all);
  });

  it('matches name and e-mail case-insensitively', () => {
    expect(searchUsers(all, 'JONES')).toEqual([bob]);
    expect(searchUsers(all, 'shop.test')).toEqual([bob, cat]);
  });

  it('matches the role, the plan name and the shown status', () => {
    expect(searchUsers(all, 'admin')).toEqual([ann]);
    expect(searchUsers(all, 'professional', plans)).toEqual([ann]);
    expect(searchUsers(all, 'banned')).toEqual([bob]);
    expect(searchUsers(all, 'inactive')).toEqual([cat]);
  });

  it('needs every word to match', () => {
    expect(searchUsers(all, 'shop banned')).toEqual([bob]);
    expect(searchUsers(all, 'smith shop')).toEqual([]);
  });
});

describe('userCounts', () => {
  it('counts users, banned and inactive (a banned inactive user counts in both)', () => {
    expect(
      userCounts([
        user({}),
        user({ isBanned: true }),
        user({ status: 'inactive' }),
        user({ isBanned: true, status: 'inactive' }),
      ]),
    ).toEqual({ users: 4, banned: 2, inactive: 2 });
  });
});

describe('planName', () => {
  it('names the plan, or falls back to its id', () => {
    expect(planName('pro', plans)).toBe('Professional');
    expect(planName('gone', plans)).toBe('gone');
    expect(planName('pro', undefined)).toBe('pro');
  });
});

describe('banBody', () => {
  it('sends the trimmed reason, the default for a blank one, and null on unban', () => {
    expect(banBody(true, '  spam  ')).toEqual({ isBanned: true, banReason: 'spam' });
    expect(banBody(true, '   ')).toEqual({ isBanned: true, banReason: DEFAULT_BAN_REASON });
    expect(banBody(false, 'spam')).toEqual({ isBanned: false, banReason: null });
    expect(DEFAULT_BAN_REASON).toBe('Policy violation');
  });
});

describe('emailToSave', () => {
  it('needs a non-empty trimmed value different from the current one', () => {
    expect(emailToSave('  new@example.test ', 'old@example.test')).toBe('new@example.test');
    expect(emailToSave('   ', 'old@example.test')).toBeNull();
    expect(emailToSave(' old@example.test', 'old@example.test')).toBeNull();
  });
});

describe('adminError', () => {
  it("keeps the spec's text and adds the server's reason when it sent one", () => {
    const refused = { status: 400, data: { message: 'You cannot ban your own account' } };
    expect(adminError('Failed to update ban status', refused)).toEqual({
      title: 'Failed to update ban status',
      detail: 'You cannot ban your own account',
    });
    expect(adminError('Failed to delete user', { status: 500, data: {} })).toEqual({
      title: 'Failed to delete user',
    });
    expect(adminError('Failed to delete user', new Error('network'))).toEqual({
      title: 'Failed to delete user',
    });
  });
});
