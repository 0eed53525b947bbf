import type { handleUnaryCall, ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { createLogger } from '@coffer/common';
import { buildAudit } from './build';
import { fakeAuditStore } from './store.fake';

const USER = '64b7f0c2a1b2c3d4e5f60718';

function call<Req, Res>(fn: handleUnaryCall<Req, Res>, request: Req) {
  return new Promise<Res>((resolve, reject) => {
    const cb: sendUnaryData<Res> = (err, res) => (err ? reject(err) : resolve(res!));
    fn({ request } as ServerUnaryCall<Req, Res>, cb);
  });
}

async function setup() {
  const store = fakeAuditStore();
  for (let i = 0; i < 30; i++) {
    await store.insert({
      userId: USER,
      eventId: `e${i}`,
      action: 'PASSWORD_CHANGED',
      entity: 'User',
      entityId: USER,
      actor: 'User',
      details: {},
      timestamp: new Date(Date.UTC(2025, 0, 1, 0, i)),
    });
  }
  return buildAudit({ store, log: createLogger('test', 'silent') }).handlers;
}

describe('audit gRPC handlers', () => {
  it('uses page 1 and 20 entries per page when the caller sends none', async () => {
    const h = await setup();
    const res = await call(h.listLogs, { userId: USER, page: 0, pageSize: 0, action: '' });
    expect(res.logs).toHaveLength(20);
    expect(res.pagination).toEqual({ total: 30, page: 1, pages: 2 });
    expect(res.logs[0]).toMatchObject({ action: 'PASSWORD_CHANGED', entity: 'User', actor: 'User' });
    expect(res.logs[0]!.timestamp).toBe('2025-01-01T00:29:00.000Z');
  });

  it.each([
    [{ action: 'DROP_TABLE' }, 'Unknown audit action'],
    [{ page: -1 }, 'Page must be a positive whole number'],
    [{ pageSize: 101 }, 'Page size must be a whole number from 1 to 100'],
    [{ userId: 'not-an-id' }, 'Invalid user id'],
  ])('refuses %j with a 400-class error saying %s', async (over, message) => {
    const h = await setup();
    await expect(call(h.listLogs, { userId: USER, page: 1, pageSize: 20, ...over })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: message,
    });
  });

  it('lists the actions present in the caller’s log', async () => {
    const h = await setup();
    await expect(call(h.listActions, { userId: USER })).resolves.toEqual({ actions: ['PASSWORD_CHANGED'] });
  });
});
