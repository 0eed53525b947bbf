import jwt from 'jsonwebtoken';
import { authWorld, TEST_SETTINGS, type AuthWorld } from '../test-world';
import { adminActor, type AdminActor } from './admin-actor';

// Who an admin action acts for comes from the session token passed on with the call, verified
// here: never from a request field.
describe('the acting admin of an admin action', () => {
  let w: AuthWorld;
  let actor: AdminActor;
  let admin: { id: string; token: string };
  let user: { id: string; token: string };

  beforeEach(async () => {
    w = await authWorld();
    actor = adminActor({ jwtSecret: TEST_SETTINGS.JWT_SECRET, accounts: w.accounts, sessions: w.sessions });
    await w.accounts.ensureAdmin('root@example.com', 'admin-pass-1');
    const a = await w.accounts.login('root@example.com', 'admin-pass-1');
    admin = { id: a.user.id, token: a.token! };
    const u = await w.register();
    user = { id: u.user.id, token: u.token };
  });

  it('is the admin whose live session token comes with the call', async () => {
    await expect(actor(admin.token)).resolves.toEqual({ id: admin.id, name: 'Administrator' });
  });

  it.each([
    ['no token', () => undefined],
    [
      'a token signed with another secret',
      () => jwt.sign({ role: 'admin', sv: 0 }, 'x'.repeat(40), { subject: admin.id, expiresIn: 60 }),
    ],
    [
      'a token without an expiry',
      () => jwt.sign({ role: 'admin', sv: 0 }, TEST_SETTINGS.JWT_SECRET, { subject: admin.id }),
    ],
    [
      'an expired token',
      () =>
        jwt.sign(
          { role: 'admin', sv: 0, exp: Math.floor(Date.now() / 1000) - 60 },
          TEST_SETTINGS.JWT_SECRET,
          { subject: admin.id },
        ),
    ],
  ])('is refused with %s', async (_what, token) => {
    await expect(actor(token())).rejects.toMatchObject({ kind: 'UNAUTHENTICATED' });
  });

  it("is refused for a user who is not an admin, whatever the token's role claim says", async () => {
    await expect(actor(user.token)).rejects.toMatchObject({
      kind: 'FORBIDDEN',
      message: 'Admin access required',
    });
    const claimsAdmin = jwt.sign({ role: 'admin', sv: 0, sid: 'forged' }, TEST_SETTINGS.JWT_SECRET, {
      subject: user.id,
      expiresIn: 60,
    });
    await expect(actor(claimsAdmin)).rejects.toMatchObject({ kind: 'FORBIDDEN' });
  });

  it('is refused for a token without a session id, and for a signed-out session', async () => {
    const noSid = jwt.sign({ role: 'admin', sv: 0 }, TEST_SETTINGS.JWT_SECRET, {
      subject: admin.id,
      expiresIn: 60,
    });
    await expect(actor(noSid)).rejects.toMatchObject({ kind: 'UNAUTHENTICATED' });
    const { sid: adminSid } = jwt.decode(admin.token) as { sid: string };
    const stepUp = jwt.sign({ typ: 'coffer-step-up', sid: adminSid }, TEST_SETTINGS.JWT_SECRET, {
      subject: admin.id,
      expiresIn: 60,
    });
    await expect(actor(stepUp)).rejects.toMatchObject({ kind: 'UNAUTHENTICATED' });
    const { sid, exp } = jwt.decode(admin.token) as { sid: string; exp: number };
    await w.sessions.end(admin.id, sid, new Date(exp * 1000));
    await expect(actor(admin.token)).rejects.toMatchObject({
      kind: 'UNAUTHENTICATED',
      message: 'Session expired',
    });
  });

  it('is refused once the session has ended (password changed) or the admin is banned', async () => {
    const fresh = await w.accounts.changePassword(admin.id, 'admin-pass-1', 'admin-pass-2');
    await expect(actor(admin.token)).rejects.toMatchObject({
      kind: 'UNAUTHENTICATED',
      message: 'Session expired',
    });
    await expect(actor(fresh)).resolves.toMatchObject({ id: admin.id });
    await w.stores.users.update(admin.id, { isBanned: true });
    await expect(actor(fresh)).rejects.toMatchObject({ kind: 'FORBIDDEN' });
  });
});
