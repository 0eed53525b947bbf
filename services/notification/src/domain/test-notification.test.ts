import { MailDeliveryError } from '../mail/mailer';
import { appLinks } from '../mail/templates';
import { fakeEventBus, fakeMailer, fakePreferencesStore } from '../store.fake';
import { preferences } from './preferences';
import { testNotifications } from './test-notification';

const USER = '64b7f0c2a1b2c3d4e5f60718';
const ADA = { userId: USER, email: 'ada@example.com', name: 'Ada' };

function setup() {
  const store = fakePreferencesStore();
  const mailer = fakeMailer();
  let clock = new Date('2025-05-01T10:00:00.000Z');
  const tests = testNotifications({
    preferences: preferences({ store, events: fakeEventBus(), log: { info: () => {}, warn: () => {} } }),
    slots: store,
    mailer,
    links: appLinks('http://127.0.0.1:8080'),
    cooldownMs: 10_000,
    now: () => clock,
  });
  return { store, mailer, tests, advance: (ms: number) => (clock = new Date(clock.getTime() + ms)) };
}

describe('test notification', () => {
  it('mails the account address when there is no override', async () => {
    const { tests, mailer } = setup();
    await expect(tests.send(ADA)).resolves.toEqual({ to: 'ada@example.com' });
    expect(mailer.sent[0]).toMatchObject({ to: 'ada@example.com', subject: 'Coffer test notification' });
  });

  it('mails the notification email override when one is set', async () => {
    const { tests, mailer, store } = setup();
    await store.updateReturningBefore(USER, { email: 'ops@example.com' });
    await tests.send(ADA);
    expect(mailer.sent[0]!.to).toBe('ops@example.com');
  });

  it('refuses a second test within the cooldown, and allows it after', async () => {
    const { tests, mailer, advance } = setup();
    await tests.send(ADA);
    await expect(tests.send(ADA)).rejects.toMatchObject({ kind: 'LIMIT_REACHED' });
    advance(10_000);
    await tests.send(ADA);
    expect(mailer.sent).toHaveLength(2);
  });

  it('says the mail server is unavailable when it cannot be reached, and lets the user retry at once', async () => {
    const { tests, mailer } = setup();
    mailer.fail = new MailDeliveryError('connect ECONNREFUSED', false);
    await expect(tests.send(ADA)).rejects.toMatchObject({ kind: 'UNAVAILABLE' });
    mailer.fail = null;
    await expect(tests.send(ADA)).resolves.toEqual({ to: 'ada@example.com' });
  });

  it('names the address when the mail server refuses it', async () => {
    const { tests, mailer } = setup();
    mailer.fail = new MailDeliveryError('550 No such user', true);
    await expect(tests.send(ADA)).rejects.toMatchObject({
      kind: 'BAD_INPUT',
      message: expect.stringContaining('ada@example.com'),
    });
  });
});
