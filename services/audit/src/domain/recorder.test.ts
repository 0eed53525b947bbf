import type { EventEnvelope } from '@coffer/common';
import { fakeAuditStore } from '../store.fake';
import { recorder } from './recorder';

const USER = '64b7f0c2a1b2c3d4e5f60718';
const log = { debug: jest.fn(), warn: jest.fn(), info: jest.fn() };
const ADMIN = '64b7f0c2a1b2c3d4e5f60799';

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

  it('writes each action of a multi-action event once, and none again on redelivery', async () => {
    const store = fakeAuditStore();
    const r = recorder({ store, log });
    const saved = event({
      id: 'evt-settings',
      subject: 'settings.backup.updated',
      data: { userId: USER, frequency: { from: 24, to: 1 }, retention: { from: 72, to: 168 } },
    });
    await expect(r.record(saved)).resolves.toBe(3);
    await expect(r.record(saved)).resolves.toBe(0);
    expect(store.all.map((e) => e.action)).toEqual([
      'SETTINGS_UPDATED',
      'FREQUENCY_UPDATED',
      'RETENTION_UPDATED',
    ]);
  });

  it('warns when an entry reaches the log more than 5 s after the action, and not on time', async () => {
    const warn = jest.fn();
    const at = (iso: string) => () => new Date(iso);
    const quiet = { ...log, warn };
    await recorder({ store: fakeAuditStore(), log: quiet, now: at('2025-05-01T10:00:04.000Z') }).record(
      event(),
    );
    expect(warn).not.toHaveBeenCalled();
    await recorder({ store: fakeAuditStore(), log: quiet, now: at('2025-05-01T10:00:12.500Z') }).record(
      event(),
    );
    expect(warn).toHaveBeenCalledWith(
      { eventId: 'evt-1', subject: 'auth.user.password_changed', lagMs: 12_500 },
      'audit entry written late',
    );
  });

  it('completes a half-written event on redelivery without repeating the written part', async () => {
    const store = fakeAuditStore();
    const saved = event({
      id: 'evt-settings',
      subject: 'settings.backup.updated',
      data: { userId: USER, frequency: { from: 24, to: 1 }, retention: { from: 72, to: 168 } },
    });
    const insert = store.insert.bind(store);
    let calls = 0;
    const flaky = {
      ...store,
      insert: (e: Parameters<typeof insert>[0]) =>
        ++calls === 2 ? Promise.reject(new Error('connection reset')) : insert(e),
    };
    await expect(recorder({ store: flaky, log }).record(saved)).rejects.toThrow('connection reset');
    expect(store.all).toHaveLength(1);
    await expect(recorder({ store, log }).record(saved)).resolves.toBe(2);
    expect(store.all.map((e) => e.action)).toEqual([
      'SETTINGS_UPDATED',
      'FREQUENCY_UPDATED',
      'RETENTION_UPDATED',
    ]);
  });

  it.each([
    ['backup.backup.created', { type: 'manual' }, 'BACKUP_CREATED'],
    ['backup.backup.completed', { type: 'auto', size: 10 }, 'BACKUP_COMPLETED'],
    ['backup.backup.failed', { type: 'auto', error: 'boom' }, 'BACKUP_FAILED'],
    ['backup.backup.deleted', { type: 'manual' }, 'BACKUP_DELETED_MANUAL'],
    ['backup.backup.deleted', { type: 'auto' }, 'BACKUP_DELETED_AUTO'],
    ['restore.restore.requested', {}, 'RESTORE_REQUESTED'],
    ['restore.restore.initiated', {}, 'RESTORE_INITIATED'],
    ['restore.restore.completed', { documentsRestored: 1, documentsFailed: 0 }, 'RESTORE_COMPLETED'],
    ['restore.restore.failed', { error: 'boom' }, 'RESTORE_FAILED'],
    ['agent.agent.registered', { name: 'a', hostname: 'h' }, 'AGENT_REGISTERED'],
    ['agent.agent.disconnected', { name: 'a', hostname: 'h' }, 'AGENT_DISCONNECTED'],
    [
      'settings.notifications.updated',
      { backupSuccess: true, backupFailure: false, agentDisconnection: true },
      'NOTIFICATIONS_UPDATED',
    ],
    ['storage.limit.exceeded', { blobId: 'b', storageLimit: 10, bytesUsed: 11 }, 'STORAGE_LIMIT_EXCEEDED'],
  ] as const)(
    'writes %s (%j) as %s exactly once, however often it is delivered',
    async (subject, extra, action) => {
      const store = fakeAuditStore();
      const r = recorder({ store, log });
      const e = event({
        id: `evt-${action}`,
        subject,
        data: {
          userId: USER,
          backupId: 'b1',
          restoreId: 'r1',
          agentId: 'a1',
          databaseName: 'orders',
          ...extra,
        } as unknown as EventEnvelope['data'],
      });
      await r.record(e);
      await r.record(e);
      await r.record(e);
      expect(store.all.map((x) => x.action)).toEqual([action]);
      expect(store.all[0]).toMatchObject({ eventId: `evt-${action}`, userId: USER });
    },
  );

  it('ignores events that are not audit actions', async () => {
    const store = fakeAuditStore();
    const registered = event({
      subject: 'auth.user.registered',
      data: { userId: USER, email: 'ada@example.com', name: 'Ada' },
    });
    await expect(recorder({ store, log }).record(registered)).resolves.toBe(0);
    expect(store.all).toEqual([]);
  });

  describe('a deleted account', () => {
    const deleted = event({
      id: 'evt-deleted',
      subject: 'auth.user.deleted',
      occurredAt: '2025-05-01T11:00:00.000Z',
      data: { userId: USER, actorId: ADMIN, email: 'ada@example.com' },
    });
    const late = event({
      id: 'evt-late',
      subject: 'agent.agent.disconnected',
      data: { userId: USER, agentId: 'a1', name: 'db-host', hostname: 'db-host' },
    });

    it("removes the user's own log and keeps USER_DELETED, with their e-mail, in the admin's", async () => {
      const store = fakeAuditStore();
      const r = recorder({ store, log });
      await r.record(event());
      await r.record(event({ id: 'evt-2', data: { userId: ADMIN } }));
      await r.record(deleted);
      await r.record(deleted); // redelivered: nothing changes
      expect(store.all.filter((e) => e.userId === USER)).toEqual([]);
      expect(store.all.filter((e) => e.userId === ADMIN)).toEqual([
        expect.objectContaining({ action: 'PASSWORD_CHANGED' }),
        expect.objectContaining({
          action: 'USER_DELETED',
          entity: 'User',
          entityId: USER,
          actor: 'Admin',
          details: { value: 'ada@example.com' },
        }),
      ]);
    });

    it('drops an entry about the user that arrives after the deletion, in either order', async () => {
      const afterwards = fakeAuditStore();
      const r1 = recorder({ store: afterwards, log });
      await r1.record(deleted);
      await r1.record(late);
      expect(afterwards.all.map((e) => [e.userId, e.action])).toEqual([[ADMIN, 'USER_DELETED']]);

      const before = fakeAuditStore();
      const r2 = recorder({ store: before, log });
      await r2.record(late);
      await r2.record(deleted);
      expect(before.all.map((e) => [e.userId, e.action])).toEqual([[ADMIN, 'USER_DELETED']]);
    });

    it('keeps the log when the write of USER_DELETED fails, so the redelivery finishes', async () => {
      const store = fakeAuditStore();
      const r = recorder({ store, log });
      await r.record(event());
      const insert = store.insert;
      store.insert = jest.fn().mockRejectedValue(new Error('connection reset'));
      await expect(r.record(deleted)).rejects.toThrow('connection reset');
      expect(store.all.map((e) => e.userId)).toEqual([USER]);
      store.insert = insert;
      await r.record(deleted);
      expect(store.all.map((e) => [e.userId, e.action])).toEqual([[ADMIN, 'USER_DELETED']]);
    });
  });

  it('lets a store failure reach the consumer, so the event is redelivered', async () => {
    const store = {
      insert: jest.fn().mockRejectedValue(new Error('connection reset')),
      removeByUser: jest.fn(),
      isDeletedUser: jest.fn(),
    };
    await expect(recorder({ store, log }).record(event())).rejects.toThrow('connection reset');
  });
});
