import { authWorld, type AuthWorld } from '../test-world';
import { DEFAULT_BAN_REASON } from './admin';

async function withAdmin() {
  const w = await authWorld();
  await w.accounts.ensureAdmin('root@example.com', 'admin-pass-1');
  const admin = (await w.accounts.login('root@example.com', 'admin-pass-1')).user;
  const { user } = await w.register();
  return { w, adminId: admin.id, userId: user.id };
}

const refusal = (message: string) => ({ kind: 'BAD_INPUT', message });

describe('admin user management', () => {
  let w: AuthWorld;
  let adminId: string;
  let userId: string;
  beforeEach(async () => {
    ({ w, adminId, userId } = await withAdmin());
  });

  it('lists users newest first', async () => {
    w.clock.advance(1000);
    const { user } = await w.register('grace@example.com', 'Grace');
    expect((await w.admin.list()).map((u) => u.id)).toEqual([user.id, userId, adminId]);
  });

  it('pages the list from a cursor; a user that is gone is a 404', async () => {
    w.clock.advance(1000);
    const { user } = await w.register('grace@example.com', 'Grace');
    expect((await w.admin.list({ limit: 2 })).map((u) => u.id)).toEqual([user.id, userId]);
    expect((await w.admin.list({ limit: 2, before: userId })).map((u) => u.id)).toEqual([adminId]);
    expect((await w.admin.list({ before: user.id })).map((u) => u.id)).toEqual([userId, adminId]);
    await w.admin.remove(adminId, userId);
    await expect(w.admin.list({ limit: 2, before: userId })).rejects.toMatchObject({
      kind: 'NOT_FOUND',
      message: 'That user is no longer in your list: load the list again',
    });
  });

  it('refuses to let admins ban, delete, deactivate or demote themselves', async () => {
    await expect(w.admin.setBan(adminId, adminId, true)).rejects.toMatchObject(
      refusal('You cannot ban your own account'),
    );
    await expect(w.admin.remove(adminId, adminId)).rejects.toMatchObject(
      refusal('You cannot delete your own account'),
    );
    await expect(w.admin.update(adminId, adminId, { status: 'inactive' })).rejects.toMatchObject(
      refusal('You cannot deactivate your own account'),
    );
    await expect(w.admin.update(adminId, adminId, { role: 'user' })).rejects.toMatchObject(
      refusal('You cannot remove the admin role from your own account'),
    );
    expect(await w.accounts.load(adminId)).toMatchObject({
      role: 'admin',
      status: 'active',
      isBanned: false,
    });
    expect(w.events.published).toEqual([expect.objectContaining({ subject: 'auth.user.registered' })]);
    // What does not lock them out is allowed.
    expect(await w.admin.update(adminId, adminId, { role: 'admin' })).toMatchObject({ role: 'admin' });
    await w.admin.setBan(adminId, adminId, false);
  });

  it('bans with the default reason for a blank one, and unbans', async () => {
    const ban = await w.admin.setBan(adminId, userId, true, '   ');
    expect(ban).toEqual({ isBanned: true, banReason: DEFAULT_BAN_REASON, bannedAt: w.clock.now() });
    expect(w.views.accountState(await w.accounts.load(userId))).toMatchObject({
      isBanned: true,
      banReason: DEFAULT_BAN_REASON,
      bannedAt: w.clock.now().toISOString(),
    });
    expect(await w.admin.setBan(adminId, userId, false, 'ignored')).toEqual({
      isBanned: false,
      banReason: null,
      bannedAt: null,
    });
    expect(w.events.of('auth.user.ban_changed')).toEqual([
      { userId, isBanned: true, banReason: DEFAULT_BAN_REASON, actorId: adminId, email: 'ada@example.com' },
      { userId, isBanned: false, banReason: null, actorId: adminId, email: 'ada@example.com' },
    ]);
    await expect(w.admin.setBan(adminId, 'b'.repeat(24), true)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });

  it('changes role, status, plan and e-mail in one call', async () => {
    const pro = await w.plan('pro');
    const updated = await w.admin.update(adminId, userId, {
      role: 'admin',
      status: 'inactive',
      plan: pro.id,
      email: ' Ada.New@Example.com',
    });
    expect(updated).toMatchObject({
      role: 'admin',
      status: 'inactive',
      plan: pro.id,
      email: 'ada.new@example.com',
    });
    expect(w.events.of('auth.user.plan_changed')).toEqual([
      { userId, planId: pro.id, planName: 'Pro', actorId: adminId, email: 'ada@example.com' },
    ]);
    expect(w.events.of('auth.user.role_changed')).toEqual([
      { userId, email: 'ada.new@example.com', role: 'admin', actorId: adminId },
    ]);
    expect(w.events.of('auth.user.status_changed')).toEqual([
      { userId, email: 'ada.new@example.com', status: 'inactive', actorId: adminId },
    ]);
    expect(w.events.of('auth.user.email_changed')).toEqual([{ userId, email: 'ada.new@example.com' }]);
    await expect(w.admin.update(adminId, userId, { email: 'root@example.com' })).rejects.toMatchObject({
      kind: 'CONFLICT',
    });
    await expect(w.admin.update(adminId, 'b'.repeat(24), { role: 'user' })).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
  });

  it('announces a role or status only when it really changes', async () => {
    await w.admin.update(adminId, userId, { role: 'user', status: 'active' });
    expect(w.events.of('auth.user.role_changed')).toEqual([]);
    expect(w.events.of('auth.user.status_changed')).toEqual([]);
  });

  it('deletes a user once and announces it, with the e-mail for the audit', async () => {
    await w.admin.remove(adminId, userId);
    await expect(w.accounts.load(userId)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    await expect(w.admin.remove(adminId, userId)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    expect(w.events.of('auth.user.deleted')).toEqual([
      { userId, actorId: adminId, email: 'ada@example.com' },
    ]);
  });

  it("takes the user's reset links along", async () => {
    await (
      await w.reset.request('ada@example.com')
    ).handedOff;
    expect([...w.stores.resetTokens.rows.values()].map((t) => t.userId)).toContain(userId);
    await w.admin.remove(adminId, userId);
    expect([...w.stores.resetTokens.rows.values()].map((t) => t.userId)).not.toContain(userId);
  });

  it('stops the API key before announcing, and a retry after a crash finishes the deletion', async () => {
    const apiKey = w.vault.unseal((await w.accounts.load(userId)).apiKeySealed);
    await expect(w.accounts.resolveApiKey(apiKey)).resolves.toMatchObject({ id: userId });
    const remove = w.stores.users.remove;
    w.stores.users.remove = async () => {
      throw new Error('connection reset');
    };
    await expect(w.admin.remove(adminId, userId)).rejects.toThrow('connection reset');
    // Announced (the other services clean up) and the key is dead, though the account is still there.
    expect(w.events.of('auth.user.deleted')).toHaveLength(1);
    await expect(w.accounts.resolveApiKey(apiKey)).rejects.toMatchObject({ kind: 'UNAUTHENTICATED' });
    w.stores.users.remove = remove;
    await w.admin.remove(adminId, userId);
    await expect(w.accounts.load(userId)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    expect(w.events.of('auth.user.deleted')).toEqual([
      { userId, actorId: adminId, email: 'ada@example.com' },
      { userId, actorId: adminId, email: 'ada@example.com' },
    ]);
  });
});
