import type { EventEnvelope } from '@coffer/common';
import { NOTIFICATION_SUBSCRIPTIONS } from '../events';
import { fakeMailer, fakeOutbox, fakePreferencesStore } from '../store.fake';
import { delivery } from './delivery';
import { eventHandlers } from './event-handlers';
import { preferences } from './preferences';

const USER = '64b7f0c2a1b2c3d4e5f60718';
const RESET_URL = 'http://127.0.0.1:8080/reset-password/s3cr3t-t0ken-value';

function setup(now = new Date('2025-05-01T10:10:00.000Z')) {
  const outbox = fakeOutbox();
  const mailer = fakeMailer();
  const prefsStore = fakePreferencesStore();
  const log = { info: jest.fn(), warn: jest.fn(), debug: jest.fn() };
  const handlers = eventHandlers({
    delivery: delivery({ outbox, mailer, log, now: () => now }),
    preferences: preferences({ store: prefsStore }),
    outbox,
  });
  return { outbox, mailer, prefsStore, log, handlers };
}

const resetRequested = (over: Partial<EventEnvelope> = {}): EventEnvelope => ({
  id: 'evt-reset-1',
  subject: 'auth.user.reset_requested',
  occurredAt: '2025-05-01T10:00:00.000Z',
  data: { userId: USER, email: 'ada@example.com', name: 'Ada', resetUrl: RESET_URL },
  ...over,
});

describe('notification event handlers', () => {
  it('mails the reset link to the account address once, even when the event comes twice', async () => {
    const { handlers, mailer } = setup();
    await handlers.handle(resetRequested());
    await handlers.handle(resetRequested());
    expect(mailer.sent).toHaveLength(1);
    expect(mailer.sent[0]).toMatchObject({ to: 'ada@example.com', subject: 'Reset your Coffer password' });
    expect(mailer.sent[0]!.text).toContain(RESET_URL);
    expect(mailer.sent[0]!.html).toContain(RESET_URL);
  });

  it('ignores the notification email override for reset mails', async () => {
    const { handlers, mailer, prefsStore } = setup();
    await prefsStore.upsert(USER, { email: 'elsewhere@example.com' });
    await handlers.handle(resetRequested());
    expect(mailer.sent[0]!.to).toBe('ada@example.com');
  });

  it('never writes the reset link or its token into a log line', async () => {
    const { handlers, log, mailer } = setup();
    await handlers.handle(resetRequested());
    mailer.fail = new Error('connect ECONNREFUSED');
    await expect(handlers.handle(resetRequested({ id: 'evt-reset-2' }))).rejects.toThrow();
    const logged = JSON.stringify([log.info.mock.calls, log.warn.mock.calls, log.debug.mock.calls]);
    expect(logged).not.toContain('s3cr3t-t0ken-value');
  });

  it('does not mail a reset link that has already expired', async () => {
    const { handlers, mailer } = setup(new Date('2025-05-01T11:00:01.000Z'));
    await handlers.handle(resetRequested());
    expect(mailer.sent).toHaveLength(0);
  });

  it('forgets a deleted user’s preferences and address, and still sends nothing on a replay', async () => {
    const { handlers, prefsStore, outbox, mailer } = setup();
    await prefsStore.upsert(USER, { backupSuccess: false });
    await handlers.handle(resetRequested());
    await handlers.handle({
      id: 'evt-del',
      subject: 'auth.user.deleted',
      occurredAt: '2025-05-01T10:20:00.000Z',
      data: { userId: USER, actorId: USER },
    });
    expect(await prefsStore.get(USER)).toBeNull();
    expect(JSON.stringify([...outbox.records.values()])).not.toContain('ada@example.com');
    await handlers.handle(resetRequested());
    expect(mailer.sent).toHaveLength(1);
  });

  it('handles exactly the subjects notification subscribes to', () => {
    const subscribed = NOTIFICATION_SUBSCRIPTIONS.flatMap((s) => s.subjects).sort();
    expect(setup().handlers.subjects.sort()).toEqual(subscribed);
  });
});
