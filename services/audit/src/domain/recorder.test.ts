import type { EventEnvelope } from '@coffer/common';
import { fakeAuditStore } from '../store.fake';
import { recorder } from './recorder';

const USER = '64b7f0c2a1b2c3d4e5f60718';
const log = { debug: jest.fn(), warn: jest.fn() };

const event = (over: Partial<EventEnvelope> = {}): EventEnvelope => ({
  id: 'evt-1',
  subject: 'auth.user.password_changed',
  occurredAt: '2025-05-01T10:00:00.000Z',
  data: { userId: USER },
  ...over,
});

describe('recorder', () => {
  it('writes one entry stamped with the event id and the time the action happened', async () => {
    const store = fakeAuditStore();
    await expect(recorder({ store, log }).record(event())).resolves.toBe(1);
    expect(store.all).toHaveLength(1);
    expect(store.all[0]).toMatchObject({
      eventId: 'evt-1',
      userId: USER,
      action: 'PASSWORD_CHANGED',
      timestamp: new Date('2025-05-01T10:00:00.000Z'),
    });
  });

  it('writes nothing more when the same event is delivered again', async () => {
    const store = fakeAuditStore();
    const r = recorder({ store, log });
    await r.record(event());
    await expect(r.record(event())).resolves.toBe(0);
    expect(store.all).toHaveLength(1);
  });

  it('ignores events that are not audit actions', async () => {
    const store = fakeAuditStore();
    const deleted = event({ subject: 'auth.user.deleted', data: { userId: USER, actorId: USER } });
    await expect(recorder({ store, log }).record(deleted)).resolves.toBe(0);
    expect(store.all).toEqual([]);
  });

  it('lets a store failure reach the consumer, so the event is redelivered', async () => {
    const store = { insert: jest.fn().mockRejectedValue(new Error('connection reset')) };
    await expect(recorder({ store, log }).record(event())).rejects.toThrow('connection reset');
  });
});
