import { STREAMS } from '@coffer/common';
import {
  NOTIFICATION_DURABLE,
  NOTIFICATION_SUBSCRIPTIONS,
  notificationStreams,
  startNotificationConsumers,
} from './events';

describe('notification subscriptions', () => {
  it('consumes backup results, agent disconnections and retention lock changes, besides the auth mails', () => {
    const byStream = Object.fromEntries(NOTIFICATION_SUBSCRIPTIONS.map((s) => [s.stream, s.subjects]));
    expect(byStream).toEqual({
      AUTH: ['auth.user.deleted', 'auth.billing.plan_lapsed'],
      BACKUP: ['backup.backup.completed', 'backup.backup.failed', 'backup.verification.failed'],
      AGENT: ['agent.agent.disconnected'],
      SETTINGS: ['settings.retention_lock.updated'],
    });
    for (const { stream, subjects } of NOTIFICATION_SUBSCRIPTIONS) {
      const prefix = STREAMS[stream].subjects[0].replace(/>$/, '');
      for (const s of subjects) expect(s.startsWith(prefix)).toBe(true);
    }
  });

  it('connects the bus with every stream it reads, and SETTINGS where it publishes', () => {
    expect(notificationStreams().sort()).toEqual(['AGENT', 'AUTH', 'BACKUP', 'SETTINGS']);
  });

  it('starts one durable notification consumer per stream it reads', async () => {
    const consume = jest.fn().mockResolvedValue({ stop: async () => {} });
    await startNotificationConsumers({ consume }, { subjects: [], handle: jest.fn() });
    expect(consume.mock.calls.map(([o]) => [o.stream, o.durable])).toEqual([
      ['AUTH', NOTIFICATION_DURABLE],
      ['BACKUP', NOTIFICATION_DURABLE],
      ['AGENT', NOTIFICATION_DURABLE],
      ['SETTINGS', NOTIFICATION_DURABLE],
    ]);
    expect(NOTIFICATION_DURABLE).toBe('notification');
  });
});
