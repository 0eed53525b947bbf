import { fakeEventBus, fakeMailer, fakePreferencesStore } from '../store.fake';
import { appLinks } from '../mail/templates';
import { MailDeliveryError } from '../mail/mailer';
import {
  CONFIRM_TOO_SOON,
  CONFIRM_TTL_MS,
  EXPIRED_CONFIRM_LINK,
  INVALID_CONFIRM_LINK,
  NOTHING_PENDING,
  emailChange,
  hashConfirmToken,
} from './email-change';
import { preferences } from './preferences';
import { expectOneMail } from '../testing/expect-mail';

const USER = '64b7f0c2a1b2c3d4e5f60718';
const ADA = { userId: USER, accountEmail: 'ada@example.com', name: 'Ada' };

function setup() {
  let t = Date.parse('2025-05-01T10:00:00.000Z');
  const store = fakePreferencesStore();
  const events = fakeEventBus();
  const mailer = fakeMailer();
  const log = { info: jest.fn(), warn: jest.fn() };
  const prefs = preferences({ store, events, log });
  const emails = emailChange({
    store,
    preferences: prefs,
    mailer,
    events,
    links: appLinks('https://coffer.example.com'),
    cooldownMs: 10_000,
    log,
    now: () => new Date(t),
  });
  const tokenOf = (i = -1) => {
    const m = /confirm-notification-email\/([A-Za-z0-9_-]+)/.exec(mailer.sent.at(i)!.text);
    return m![1]!;
  };
  return { store, events, mailer, log, prefs, emails, tokenOf, advance: (ms: number) => (t += ms) };
}

describe('changing the notification address', () => {
  it('mails a link to the new address and keeps notifying the old one until it is opened', async () => {
    const { emails, mailer, prefs, tokenOf } = setup();
    await emails.request(ADA, 'Ops@Example.com');

    expectOneMail(mailer, {
      to: 'ops@example.com',
      subject: 'Confirm your Coffer notification email',
      text: ['https://coffer.example.com/confirm-notification-email/', 'expires in 24 hours'],
    });
    expect(await emails.pending(USER)).toMatchObject({ email: 'ops@example.com' });
    expect(await prefs.recipient(USER, ADA.accountEmail, 'backupFailure')).toBe('ada@example.com');

    await expect(emails.confirm(tokenOf())).resolves.toEqual({ userId: USER, email: 'ops@example.com' });
    expect(await prefs.recipient(USER, ADA.accountEmail, 'backupFailure')).toBe('ops@example.com');
    expect(await emails.pending(USER)).toBeNull();
  });

  it('keeps only the hash of the link token, and never puts the link in an event or a log line', async () => {
    const { emails, store, events, log, tokenOf } = setup();
    await emails.request(ADA, 'ops@example.com');
    const token = tokenOf();
    const stored = JSON.stringify([...store.docs.values()]);
    expect(stored).not.toContain(token);
    expect(stored).toContain(hashConfirmToken(token));
    await emails.confirm(token);
    const said = JSON.stringify([events.published, log.info.mock.calls, log.warn.mock.calls]);
    expect(said).not.toContain(token);
    expect(events.published.map((e) => [e.subject, e.data])).toEqual([
      ['settings.notification_email.requested', { userId: USER, email: 'ops@example.com', current: null }],
      ['settings.notification_email.changed', { userId: USER, email: 'ops@example.com', previous: null }],
    ]);
  });

  it('refuses a used link, a replaced link and an expired link, each saying why', async () => {
    const { emails, tokenOf, advance } = setup();
    await emails.request(ADA, 'ops@example.com');
    const used = tokenOf();
    await emails.confirm(used);
    await expect(emails.confirm(used)).rejects.toMatchObject({
      kind: 'BAD_INPUT',
      message: INVALID_CONFIRM_LINK,
    });

    advance(60_000);
    await emails.request(ADA, 'night@example.com');
    const replaced = tokenOf();
    advance(60_000);
    await emails.resend(ADA);
    await expect(emails.confirm(replaced)).rejects.toMatchObject({ message: INVALID_CONFIRM_LINK });

    const late = tokenOf();
    advance(CONFIRM_TTL_MS);
    await expect(emails.confirm(late)).rejects.toMatchObject({
      kind: 'BAD_INPUT',
      message: EXPIRED_CONFIRM_LINK,
    });
    expect((await emails.pending(USER))?.email).toBe('night@example.com');
  });

  it('goes back to the account address at once, dropping a pending address', async () => {
    const { emails, mailer, prefs, tokenOf, advance } = setup();
    await emails.request(ADA, 'ops@example.com');
    await emails.confirm(tokenOf());
    advance(60_000);
    await emails.request(ADA, 'night@example.com');
    const pendingLink = tokenOf();
    await emails.request(ADA, 'ADA@example.com');
    expect(await prefs.recipient(USER, ADA.accountEmail)).toBe('ada@example.com');
    expect(await emails.pending(USER)).toBeNull();
    await expect(emails.confirm(pendingLink)).rejects.toMatchObject({ message: INVALID_CONFIRM_LINK });
    expect(mailer.sent).toHaveLength(2);
  });

  it('asks nothing for the address notifications already go to, and keeps a pending change', async () => {
    const { emails, mailer } = setup();
    await emails.request(ADA, 'ada@example.com');
    expect(mailer.sent).toEqual([]);
    expect(await emails.pending(USER)).toBeNull();
    await emails.request(ADA, 'ops@example.com');
    await emails.request(ADA, 'ada@example.com');
    expect((await emails.pending(USER))?.email).toBe('ops@example.com');
    expect(mailer.sent).toHaveLength(1);
  });

  it('cancels a pending address so its link stops working', async () => {
    const { emails, tokenOf } = setup();
    await emails.request(ADA, 'ops@example.com');
    await emails.cancel(USER);
    expect(await emails.pending(USER)).toBeNull();
    await expect(emails.confirm(tokenOf())).rejects.toMatchObject({ message: INVALID_CONFIRM_LINK });
    await expect(emails.resend(ADA)).rejects.toMatchObject({ kind: 'CONFLICT', message: NOTHING_PENDING });
  });

  it('sends at most one confirmation mail per cooldown, even after a cancel', async () => {
    const { emails, mailer, advance } = setup();
    await emails.request(ADA, 'ops@example.com');
    await emails.cancel(USER);
    await expect(emails.request(ADA, 'other@example.com')).rejects.toMatchObject({
      kind: 'LIMIT_REACHED',
      message: CONFIRM_TOO_SOON,
    });
    advance(10_000);
    await emails.request(ADA, 'other@example.com');
    expect(mailer.sent.map((m) => m.to)).toEqual(['ops@example.com', 'other@example.com']);
  });

  it('leaves nothing pending when the mail server refuses the address', async () => {
    const { emails, mailer } = setup();
    mailer.fail = new MailDeliveryError('550 no such user', true);
    await expect(emails.request(ADA, 'nobody@example.com')).rejects.toMatchObject({
      kind: 'BAD_INPUT',
      message: 'The mail server refused to deliver to nobody@example.com. Please check the address.',
    });
    expect(await emails.pending(USER)).toBeNull();
  });
});
