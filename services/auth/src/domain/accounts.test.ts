import { authWorld } from '../test-world';
import { CURRENT_PASSWORD_INCORRECT, CURRENT_PASSWORD_REQUIRED, EMAIL_TAKEN } from './accounts';

describe('registration', () => {
  it('creates a user on the Free plan with a normalised e-mail, an API key and a session', async () => {
    const w = await authWorld();
    const { user, token } = await w.accounts.register({
      name: '  Ada Lovelace ',
      email: '  Ada@Example.COM ',
      password: 'secret-1',
    });
    expect(user).toMatchObject({
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      role: 'user',
      status: 'active',
      plan: (await w.plan('free')).id,
      isBanned: false,
      sessionVersion: 0,
    });
    // The key is kept only as a lookup hash and a sealed copy its owner can see again.
    const apiKey = w.views.user(user).apiKey;
    expect(apiKey).toMatch(/^cof_/);
    expect(JSON.stringify(w.stores.users.rows.get(user.id))).not.toContain(apiKey);
    expect(w.claims(token)).toMatchObject({ sub: user.id, role: 'user', sv: 0 });
    expect(w.events.of('auth.user.registered')).toEqual([
      { userId: user.id, email: 'ada@example.com', name: 'Ada Lovelace' },
    ]);
  });

  it('refuses an e-mail that differs only in case and spaces with a conflict', async () => {
    const w = await authWorld();
    await w.register('ada@example.com');
    await expect(w.register('  ADA@example.com')).rejects.toMatchObject({
      kind: 'CONFLICT',
      message: EMAIL_TAKEN,
    });
    expect(w.events.of('auth.user.registered')).toHaveLength(1);
  });
});

describe('login', () => {
  it('signs in with the right password, whatever the e-mail case', async () => {
    const w = await authWorld();
    const { user } = await w.register();
    const res = await w.accounts.login(' ADA@example.com ', 'secret-1');
    expect(res.user.id).toBe(user.id);
    expect(w.claims(res.token)).toMatchObject({ sub: user.id, sv: 0 });
  });

  it('refuses a wrong password and an unknown e-mail with the same answer', async () => {
    const w = await authWorld();
    await w.register();
    const wrong = await w.accounts.login('ada@example.com', 'wrong-1').catch((e: unknown) => e);
    const unknown = await w.accounts.login('nobody@example.com', 'secret-1').catch((e: unknown) => e);
    expect(wrong).toMatchObject({ kind: 'UNAUTHENTICATED', message: 'Invalid email or password' });
    expect(unknown).toEqual(wrong);
  });

  it('lets a banned user sign in, with the ban in the answer for the suspended page', async () => {
    const w = await authWorld();
    const admin = await w.register('admin@example.com');
    const { user } = await w.register();
    await w.admin.setBan(admin.user.id, user.id, true, 'Spam');
    const res = await w.accounts.login('ada@example.com', 'secret-1');
    expect(res.user).toMatchObject({ isBanned: true, banReason: 'Spam', bannedAt: w.clock.now() });
  });

  it('refuses an inactive account once the password is right, and only then', async () => {
    const w = await authWorld();
    const admin = await w.register('admin@example.com');
    const { user } = await w.register();
    await w.admin.update(admin.user.id, user.id, { status: 'inactive' });
    await expect(w.accounts.login('ada@example.com', 'secret-1')).rejects.toMatchObject({
      kind: 'FORBIDDEN',
      code: 'ACCOUNT_INACTIVE',
    });
    // A wrong password does not learn the account's status.
    await expect(w.accounts.login('ada@example.com', 'wrong-1')).rejects.toMatchObject({
      kind: 'UNAUTHENTICATED',
    });
    await w.admin.update(admin.user.id, user.id, { status: 'active' });
    await expect(w.accounts.login('ada@example.com', 'secret-1')).resolves.toHaveProperty('token');
  });
});

describe('profile', () => {
  it('normalises a new e-mail, announces it, and refuses one another account has', async () => {
    const w = await authWorld();
    const { user } = await w.register();
    await w.register('grace@example.com', 'Grace');
    const updated = await w.accounts.updateProfile(user.id, {
      name: ' Ada L ',
      email: ' ADA.L@example.com',
      currentPassword: 'secret-1',
    });
    expect(updated).toMatchObject({ name: 'Ada L', email: 'ada.l@example.com' });
    expect(w.events.of('auth.user.email_changed')).toEqual([{ userId: user.id, email: 'ada.l@example.com' }]);

    // The same address again is no change and no event (and needs no password).
    await w.accounts.updateProfile(user.id, { email: 'Ada.L@example.com' });
    expect(w.events.of('auth.user.email_changed')).toHaveLength(1);
    await expect(
      w.accounts.updateProfile(user.id, { email: 'GRACE@example.com', currentPassword: 'secret-1' }),
    ).rejects.toMatchObject({ kind: 'CONFLICT', message: EMAIL_TAKEN });
  });

  it('changes the e-mail only with the current password, and tells the previous address', async () => {
    const w = await authWorld();
    const { user } = await w.register();
    await expect(w.accounts.updateProfile(user.id, { email: 'thief@example.com' })).rejects.toMatchObject({
      kind: 'BAD_INPUT',
      message: CURRENT_PASSWORD_REQUIRED,
    });
    await expect(
      w.accounts.updateProfile(user.id, { email: 'thief@example.com', currentPassword: 'guess-1' }),
    ).rejects.toMatchObject({ kind: 'BAD_INPUT', message: CURRENT_PASSWORD_INCORRECT });
    expect((await w.accounts.load(user.id)).email).toBe('ada@example.com');
    expect(w.mail.emailChanges).toEqual([]);
    // A name alone needs no password.
    await w.accounts.updateProfile(user.id, { name: 'Ada B' });

    await w.accounts.updateProfile(user.id, { email: 'ada.b@example.com', currentPassword: 'secret-1' });
    expect(w.mail.emailChanges).toEqual([
      { userId: user.id, previousEmail: 'ada@example.com', newEmail: 'ada.b@example.com', name: 'Ada B' },
    ]);
    // Notification being down does not undo the change.
    w.mail.fail = new Error('14 UNAVAILABLE');
    await w.accounts.updateProfile(user.id, { email: 'ada.c@example.com', currentPassword: 'secret-1' });
    expect((await w.accounts.load(user.id)).email).toBe('ada.c@example.com');
  });

  it('answers NOT_FOUND for unknown and malformed user ids', async () => {
    const w = await authWorld();
    await expect(w.accounts.load('a'.repeat(24))).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    await expect(w.accounts.load('not-an-id')).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });
});

describe('password change', () => {
  it('needs the current password, then only the new one signs in', async () => {
    const w = await authWorld();
    const { user } = await w.register();
    await expect(w.accounts.changePassword(user.id, 'wrong-1', 'another-1')).rejects.toMatchObject({
      kind: 'BAD_INPUT',
      message: 'Current password is incorrect',
    });
    expect(w.events.of('auth.user.password_changed')).toEqual([]);

    const { token: before } = await w.accounts.login('ada@example.com', 'secret-1');
    const fresh = await w.accounts.changePassword(user.id, 'secret-1', 'another-1');
    await expect(w.accounts.login('ada@example.com', 'secret-1')).rejects.toMatchObject({
      kind: 'UNAUTHENTICATED',
    });
    await w.accounts.login('ada@example.com', 'another-1');
    expect(w.events.of('auth.user.password_changed')).toEqual([{ userId: user.id, via: 'profile' }]);
    // Like a reset, it ends every session issued before it; the caller goes on with the fresh token.
    expect((await w.accounts.load(user.id)).sessionVersion).toBe(1);
    expect(w.claims(before).sv).toBe(0);
    expect(w.claims(fresh).sv).toBe(1);
    expect(w.claims(fresh).sub).toBe(user.id);
  });
});

describe('API key', () => {
  it('regenerating replaces the key at once: the old one resolves no more', async () => {
    const w = await authWorld();
    const { user } = await w.register();
    const old = w.views.user(user).apiKey;
    expect((await w.accounts.resolveApiKey(old)).id).toBe(user.id);

    const fresh = await w.accounts.regenerateApiKey(user.id);
    expect(fresh).toMatch(/^cof_/);
    expect(fresh).not.toBe(old);
    await expect(w.accounts.resolveApiKey(old)).rejects.toMatchObject({
      kind: 'UNAUTHENTICATED',
      message: 'Invalid API key',
    });
    expect((await w.accounts.resolveApiKey(fresh)).id).toBe(user.id);
    expect(w.views.profile(await w.accounts.load(user.id)).apiKey).toBe(fresh);
    expect(w.events.of('auth.user.api_key_regenerated')).toEqual([{ userId: user.id }]);
  });
});

describe('first admin', () => {
  it('creates the admin once, and promotes an existing account instead of duplicating it', async () => {
    const w = await authWorld();
    await w.accounts.ensureAdmin('Root@Example.com', 'admin-pass-1');
    await w.accounts.ensureAdmin('root@example.com', 'admin-pass-1');
    const admins = (await w.admin.list()).filter((u) => u.role === 'admin');
    expect(admins.map((u) => u.email)).toEqual(['root@example.com']);

    const { user } = await w.register('ops@example.com');
    await w.accounts.ensureAdmin('ops@example.com', 'ignored-1');
    expect((await w.accounts.load(user.id)).role).toBe('admin');
    // An existing account keeps its password.
    await w.accounts.login('ops@example.com', 'secret-1');
  });
});
