import { authWorld } from '../test-world';
import { INVALID_RESET_TOKEN, RESET_TTL_MS } from './password-reset';

const invalid = { kind: 'BAD_INPUT', message: INVALID_RESET_TOKEN };

type World = Awaited<ReturnType<typeof authWorld>>;
/** A request, once its link is stored and its mail handed over. */
async function requested(w: World, email: string) {
  const r = await w.reset.request(email);
  await r.handedOff;
  return r;
}

describe('password reset', () => {
  it('answers nothing and records nothing for an unknown e-mail', async () => {
    const w = await authWorld();
    expect(await requested(w, 'nobody@example.com')).toEqual({ handedOff: expect.any(Promise) });
    expect(w.events.of('auth.user.reset_requested')).toEqual([]);
    expect(w.mail.resets).toEqual([]);
    expect(w.stores.resetTokens.rows.size).toBe(0);
  });

  it('mails a link, stores only the token hash, and is used once to set a new password', async () => {
    const w = await authWorld();
    const { user, token: session } = await w.register();
    const { token, url } = await requested(w, ' ADA@example.com ');
    expect(url).toBe(`https://coffer.example/reset-password/${token}`);
    // The link goes to notification by a call; the persisted event carries nothing usable.
    expect(w.mail.resets).toEqual([
      { userId: user.id, email: 'ada@example.com', name: 'Ada', resetUrl: url },
    ]);
    expect(w.events.of('auth.user.reset_requested')).toEqual([{ userId: user.id }]);
    expect(JSON.stringify(w.events.published)).not.toContain(token!);
    expect(JSON.stringify([...w.stores.resetTokens.rows.values()])).not.toContain(token!);

    await w.reset.verify(token!);
    await w.reset.reset(token!, 'brand-new-1');
    await expect(w.reset.reset(token!, 'another-1')).rejects.toMatchObject(invalid);
    await expect(w.reset.verify(token!)).rejects.toMatchObject(invalid);

    await expect(w.accounts.login('ada@example.com', 'secret-1')).rejects.toMatchObject({
      kind: 'UNAUTHENTICATED',
    });
    const after = await w.accounts.login('ada@example.com', 'brand-new-1');
    // The session version moved on: the gateway refuses every token issued before the reset.
    expect(w.claims(session).sv).toBe(0);
    expect(w.claims(after.token).sv).toBe(1);
    expect(w.views.accountState(after.user).sessionVersion).toBe(1);
    expect(w.events.of('auth.user.password_changed')).toEqual([{ userId: user.id, via: 'reset' }]);
  });

  it('answers without waiting for the link to be stored or the mail to be handed over', async () => {
    const w = await authWorld();
    await w.register();
    // Notification takes its time: the mail path does not finish until the test lets it.
    let letGo!: () => void;
    const slow = new Promise<void>((r) => (letGo = r));
    let reached!: () => void;
    const mailReached = new Promise<void>((r) => (reached = r));
    const passwordReset = w.mail.passwordReset;
    w.mail.passwordReset = async (d) => {
      reached();
      await slow;
      await passwordReset(d);
    };
    const answering = w.reset.request('ada@example.com');
    await mailReached;
    const first = await Promise.race([answering, new Promise((r) => setImmediate(() => r('waiting')))]);
    // Answered, as for an unknown address, while the mail is still on its way.
    expect(first).not.toBe('waiting');
    const answer = await answering;
    expect(w.mail.resets).toEqual([]);
    letGo();
    await answer.handedOff;
    expect(w.mail.resets).toHaveLength(1);
    await w.reset.verify(answer.token!);
  });

  it('expires after an hour', async () => {
    const w = await authWorld();
    await w.register();
    const { token } = await requested(w, 'ada@example.com');
    w.clock.advance(RESET_TTL_MS - 1);
    await w.reset.verify(token!);
    w.clock.advance(1);
    await expect(w.reset.verify(token!)).rejects.toMatchObject(invalid);
    await expect(w.reset.reset(token!, 'brand-new-1')).rejects.toMatchObject(invalid);
    await w.accounts.login('ada@example.com', 'secret-1');
  });

  it('refuses made-up tokens', async () => {
    const w = await authWorld();
    await expect(w.reset.verify('not-a-real-token')).rejects.toMatchObject(invalid);
    await expect(w.reset.reset('not-a-real-token', 'brand-new-1')).rejects.toMatchObject(invalid);
  });

  it('lets two requests coexist, and drops tokens long expired on the next request', async () => {
    const w = await authWorld();
    await w.register();
    const first = await requested(w, 'ada@example.com');
    const second = await requested(w, 'ada@example.com');
    await w.reset.verify(first.token!);
    await w.reset.verify(second.token!);
    expect(w.stores.resetTokens.rows.size).toBe(2);
    w.clock.advance(2 * RESET_TTL_MS + 1);
    await requested(w, 'ada@example.com');
    expect(w.stores.resetTokens.rows.size).toBe(1);
  });

  it('voids the other pending links once one of them is used', async () => {
    const w = await authWorld();
    await w.register();
    const first = await requested(w, 'ada@example.com');
    const second = await requested(w, 'ada@example.com');
    await w.reset.reset(second.token!, 'brand-new-1');
    await expect(w.reset.verify(first.token!)).rejects.toMatchObject(invalid);
    await expect(w.reset.reset(first.token!, 'attacker-1')).rejects.toMatchObject(invalid);
    await w.accounts.login('ada@example.com', 'brand-new-1');
  });

  it('voids a pending link once the password is changed from the profile', async () => {
    const w = await authWorld();
    const { user } = await w.register();
    const { token } = await requested(w, 'ada@example.com');
    await w.reset.verify(token!);
    await w.accounts.changePassword(user.id, 'secret-1', 'changed-1');
    await expect(w.reset.verify(token!)).rejects.toMatchObject(invalid);
    await expect(w.reset.reset(token!, 'attacker-1')).rejects.toMatchObject(invalid);
    await w.accounts.login('ada@example.com', 'changed-1');
  });

  it("voids a pending link once the account's e-mail changes, by its owner or by an admin", async () => {
    const w = await authWorld();
    const { user } = await w.register();
    const first = await requested(w, 'ada@example.com');
    await w.accounts.updateProfile(user.id, { email: 'ada@new.example', currentPassword: 'secret-1' });
    await expect(w.reset.verify(first.token!)).rejects.toMatchObject(invalid);
    await expect(w.reset.reset(first.token!, 'attacker-1')).rejects.toMatchObject(invalid);

    const second = await requested(w, 'ada@new.example');
    await w.accounts.updateProfile(user.id, { email: 'ada@third.example' }, { byAdmin: true });
    await expect(w.reset.reset(second.token!, 'attacker-1')).rejects.toMatchObject(invalid);
    await w.accounts.login('ada@third.example', 'secret-1');

    // A link sent after the change works.
    const third = await requested(w, 'ada@third.example');
    await w.reset.reset(third.token!, 'brand-new-1');
    await w.accounts.login('ada@third.example', 'brand-new-1');
  });

  it('answers the same when notification cannot take the mail, without logging the link', async () => {
    const w = await authWorld();
    await w.register();
    w.mail.fail = new Error('14 UNAVAILABLE: No connection established');
    const res = await requested(w, 'ada@example.com');
    expect(res.token).toBeDefined();
    expect(w.events.of('auth.user.reset_requested')).toHaveLength(1);
  });
});
