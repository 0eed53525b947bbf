import { AppError, unavailable, type EventEnvelope, type EventMap, type EventSubject } from '@coffer/common';
import { NOTIFICATION_SUBSCRIPTIONS } from '../events';
import { appLinks } from '../mail/templates';
import { fakeAccounts, fakeEventBus, fakeMailer, fakeOutbox, fakePreferencesStore } from '../store.fake';
import { delivery } from './delivery';
import { eventHandlers } from './event-handlers';
import { preferences } from './preferences';
import { expectOneMail } from '../testing/expect-mail';

const USER = '64b7f0c2a1b2c3d4e5f60718';

function setup(now = new Date('2025-05-01T10:10:00.000Z')) {
  const outbox = fakeOutbox();
  const mailer = fakeMailer();
  const prefsStore = fakePreferencesStore();
  const accounts = fakeAccounts({ [USER]: { email: 'ada@example.com', name: 'Ada' } });
  const log = { info: jest.fn(), warn: jest.fn(), debug: jest.fn() };
  const prefs = preferences({ store: prefsStore, events: fakeEventBus(), log });
  const handlers = eventHandlers({
    delivery: delivery({ outbox, mailer, log, now: () => now }),
    preferences: prefs,
    outbox,
    accounts,
    links: appLinks('http://127.0.0.1:8080'),
    log,
  });
  return { outbox, mailer, prefsStore, prefs, accounts, log, handlers };
}

const envelope = <S extends EventSubject>(subject: S, data: EventMap[S], id = `evt-${subject}`) =>
  ({ id, subject, occurredAt: '2025-05-01T10:00:00.000Z', data }) as EventEnvelope;

const backup = {
  userId: USER,
  backupId: 'b1',
  databaseName: 'orders',
  agentId: 'a1',
  type: 'manual' as const,
};
const completed = (id?: string) => envelope('backup.backup.completed', { ...backup, size: 1536 * 1024 }, id);
const failed = (id?: string, error = 'mongodump: connection refused') =>
  envelope('backup.backup.failed', { ...backup, type: 'auto', error }, id);
const disconnected = (id?: string) =>
  envelope(
    'agent.agent.disconnected',
    { userId: USER, agentId: 'a1', name: 'db-box', hostname: 'host-1' },
    id,
  );

describe('notification event handlers', () => {
  it('forgets a deleted user’s preferences and address, and still sends nothing on a replay', async () => {
    const { handlers, prefsStore, outbox, mailer } = setup();
    await prefsStore.updateReturningBefore(USER, { backupSuccess: false });
    await handlers.handle(failed());
    await handlers.handle({
      id: 'evt-del',
      subject: 'auth.user.deleted',
      occurredAt: '2025-05-01T10:20:00.000Z',
      data: { userId: USER, actorId: USER },
    });
    expect(await prefsStore.get(USER)).toBeNull();
    expect(JSON.stringify([...outbox.records.values()])).not.toContain('ada@example.com');
    await handlers.handle(failed());
    expect(mailer.sent).toHaveLength(1);
  });

  it('handles exactly the subjects notification subscribes to', () => {
    const subscribed = NOTIFICATION_SUBSCRIPTIONS.flatMap((s) => s.subjects).sort();
    expect(setup().handlers.subjects.sort()).toEqual(subscribed);
  });
});

describe.each([
  ['backup.backup.completed', 'backupSuccess', completed, 'Backup completed'],
  ['backup.backup.failed', 'backupFailure', failed, 'Backup failed'],
  ['agent.agent.disconnected', 'agentDisconnection', disconnected, 'Agent disconnected'],
] as const)('%s', (_subject, topic, event, subject) => {
  it(`sends nothing when ${topic} is off`, async () => {
    const { handlers, mailer, prefs } = setup();
    await prefs.update(USER, { [topic]: false });
    await handlers.handle(event());
    expect(mailer.sent).toEqual([]);
  });

  it('sends one mail to the account address when it is on (the default)', async () => {
    const { handlers, mailer } = setup();
    await handlers.handle(event());
    expect(mailer.sent).toHaveLength(1);
    expect(mailer.sent[0]).toMatchObject({ to: 'ada@example.com', subject });
    expect(mailer.sent[0]!.text.startsWith('Hi Ada,')).toBe(true);
  });

  it('sends it to the notification address when the user set one', async () => {
    const { handlers, mailer, prefs } = setup();
    await prefs.update(USER, { email: 'ops@example.com' });
    await handlers.handle(event());
    expect(mailer.sent.map((m) => m.to)).toEqual(['ops@example.com']);
  });

  it('sends it once however often the event is delivered', async () => {
    const { handlers, mailer, outbox } = setup();
    await handlers.handle(event());
    await handlers.handle(event());
    await handlers.handle(event());
    expect(mailer.sent).toHaveLength(1);
    expect(outbox.records.get(`evt-${_subject}`)).toMatchObject({ status: 'sent', userId: USER });
  });

  it('sends one mail per event', async () => {
    const { handlers, mailer } = setup();
    await handlers.handle(event('evt-1'));
    await handlers.handle(event('evt-2'));
    expect(mailer.sent).toHaveLength(2);
  });

  it('retries when the mail server is unreachable, and then sends exactly one', async () => {
    const { handlers, mailer } = setup();
    mailer.fail = new Error('connect ECONNREFUSED');
    await expect(handlers.handle(event())).rejects.toThrow('ECONNREFUSED');
    mailer.fail = null;
    await handlers.handle(event());
    await handlers.handle(event());
    expect(mailer.sent).toHaveLength(1);
  });

  it('retries when auth is unreachable', async () => {
    const { handlers, mailer, accounts } = setup();
    accounts.fail = unavailable('A Coffer service is not answering right now. Please try again shortly.');
    await expect(handlers.handle(event())).rejects.toBeInstanceOf(AppError);
    expect(mailer.sent).toEqual([]);
    accounts.fail = null;
    await handlers.handle(event());
    expect(mailer.sent).toHaveLength(1);
  });

  it('sends nothing for an account that no longer exists', async () => {
    const { handlers, mailer, accounts } = setup();
    delete accounts.accounts[USER];
    await handlers.handle(event());
    expect(mailer.sent).toEqual([]);
  });

  it('sends nothing when the event is more than a day old by the time it is handled', async () => {
    const { handlers, mailer } = setup(new Date('2025-05-02T10:00:01.000Z'));
    await handlers.handle(event());
    expect(mailer.sent).toEqual([]);
  });
});

describe('backup and agent mail contents', () => {
  it('tells the database, size, type and time of a completed backup', async () => {
    const { handlers, mailer } = setup();
    await handlers.handle(completed());
    const { text } = mailer.sent[0]!;
    expect(text).toContain('Database: orders');
    expect(text).toContain('Size: 1.5 MB');
    expect(text).toContain('Type: Manual');
    expect(text).toContain('Completed: May 1, 2025, 10:00 AM UTC');
  });

  it('tells the error of a failed backup, escaped in HTML, and to check the agent', async () => {
    const { handlers, mailer } = setup();
    await handlers.handle(failed(undefined, 'auth failed for <script>alert(1)</script> & co'));
    const { text, html } = mailer.sent[0]!;
    expect(text).toContain('Error: auth failed for <script>alert(1)</script> & co');
    expect(text).toContain('Type: Automatic');
    expect(text).toMatch(/check the Coffer agent/);
    expect(html).not.toContain('<script>');
    expect(html).toContain('auth failed for &lt;script&gt;alert(1)&lt;/script&gt; &amp; co');
  });

  it('names the disconnected agent and says scheduled backups wait for it', async () => {
    const { handlers, mailer } = setup();
    await handlers.handle(disconnected());
    const { text } = mailer.sent[0]!;
    expect(text).toContain('Agent: db-box (host-1)');
    expect(text).toContain('Disconnected: May 1, 2025, 10:00 AM UTC');
    expect(text).toContain('Scheduled backups of its databases will not run until the agent reconnects.');
  });

  it('sends no alarm for an agent that said it was leaving (Restart Agent, a stop on its server)', async () => {
    const { handlers, mailer } = setup();
    for (const leaving of ['restart', 'stop'] as const)
      await handlers.handle(
        envelope(
          'agent.agent.disconnected',
          { userId: USER, agentId: 'a1', name: 'db-box', hostname: 'host-1', leaving },
          `evt-${leaving}`,
        ),
      );
    expect(mailer.sent).toHaveLength(0);
    // A socket that just closed is still one.
    await handlers.handle(disconnected());
    expect(mailer.sent).toHaveLength(1);
  });

  it('says an agent whose API key was replaced cannot reconnect by itself, and how to give it the new key', async () => {
    const { handlers, mailer } = setup();
    await handlers.handle(
      envelope('agent.agent.disconnected', {
        userId: USER,
        agentId: 'a1',
        name: 'db-box',
        hostname: 'host-1',
        reason: 'api-key-replaced',
      }),
    );
    const { subject, text } = mailer.sent[0]!;
    expect(subject).toBe('Agent disconnected');
    expect(text).toContain('because your API key was regenerated');
    expect(text).toContain('cannot reconnect by itself');
    expect(text).toContain('coffer-agent init --server …, which asks for it');
    expect(text).not.toContain('reconnects by itself');
  });

  it('never writes the address or the error text into a log line', async () => {
    const { handlers, log } = setup();
    await handlers.handle(failed(undefined, 'secret-ish tool output'));
    const logged = JSON.stringify([log.info.mock.calls, log.warn.mock.calls, log.debug.mock.calls]);
    expect(logged).not.toContain('ada@example.com');
    expect(logged).not.toContain('secret-ish');
  });
});

describe('billing mails', () => {
  it('mails the user once when a subscription lapsed after failed payments, even with every toggle off', async () => {
    const { handlers, mailer, prefs } = setup();
    await prefs.update(USER, { backupSuccess: false, backupFailure: false, agentDisconnection: false });
    const lapsed = envelope('auth.billing.plan_lapsed', {
      userId: USER,
      previousPlanName: 'Pro',
      planName: 'Free',
    });
    await handlers.handle(lapsed);
    await handlers.handle(lapsed);
    expectOneMail(mailer, {
      to: 'ada@example.com',
      subject: 'Your Coffer Pro plan has ended',
      text: ['your account is now on the Free plan', 'http://127.0.0.1:8080/profile?tab=billing'],
    });
  });
});

describe('retention lock mails', () => {
  const lockEvent = (change: EventMap['settings.retention_lock.updated']['change'], effectiveAt?: string) =>
    envelope('settings.retention_lock.updated', { userId: USER, change, effectiveAt }, `evt-lock-${change}`);

  it('announces a requested turn-off once, to the account address, whatever the toggles and override say', async () => {
    const { handlers, mailer, prefs } = setup();
    await prefs.update(USER, { backupSuccess: false, backupFailure: false, agentDisconnection: false });
    const requested = lockEvent('disable_requested', '2025-05-08T10:00:00.000Z');
    await handlers.handle(requested);
    await handlers.handle(requested);
    expectOneMail(mailer, {
      to: 'ada@example.com',
      subject: 'Your Coffer retention lock will turn off',
      text: [
        'It stays on until May 8, 2025, 10:00 UTC',
        'http://127.0.0.1:8080/settings?tab=general#retention-lock',
      ],
    });
  });

  it('sends nothing for the lock turning on, a cancelled request, or the turn-off in effect', async () => {
    const { handlers, mailer } = setup();
    for (const change of ['enabled', 'disable_cancelled', 'disabled'] as const) {
      await handlers.handle(lockEvent(change));
    }
    expect(mailer.sent).toHaveLength(0);
  });
});
