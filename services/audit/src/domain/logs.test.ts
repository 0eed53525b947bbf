import { fakeAuditStore } from '../store.fake';
import { auditLogs } from './logs';
import type { AuditAction } from './actions';

const ALICE = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const BOB = 'bbbbbbbbbbbbbbbbbbbbbbbb';

async function seeded() {
  const store = fakeAuditStore();
  const add = (userId: string, action: AuditAction, minute: number) =>
    store.insert({
      userId,
      eventId: `${userId}-${minute}`,
      action,
      entity: 'User',
      entityId: userId,
      actor: 'User',
      details: {},
      timestamp: new Date(Date.UTC(2025, 0, 1, 0, minute)),
    });
  for (let m = 0; m < 25; m++) await add(ALICE, m % 5 === 0 ? 'PLAN_CHANGED' : 'PASSWORD_CHANGED', m);
  await add(BOB, 'EMAIL_CHANGED', 30);
  return auditLogs({ store });
}

describe('audit logs', () => {
  it('pages a user’s entries newest first and counts the pages', async () => {
    const logs = await seeded();
    const first = await logs.list({ userId: ALICE, page: 1, pageSize: 10 });
    expect(first).toMatchObject({ total: 25, page: 1, pages: 3 });
    expect(first.logs.map((l) => l.timestamp.getUTCMinutes())).toEqual([
      24, 23, 22, 21, 20, 19, 18, 17, 16, 15,
    ]);
    const last = await logs.list({ userId: ALICE, page: 3, pageSize: 10 });
    expect(last.logs.map((l) => l.timestamp.getUTCMinutes())).toEqual([4, 3, 2, 1, 0]);
  });

  it('never shows another user’s entries', async () => {
    const logs = await seeded();
    const alice = await logs.list({ userId: ALICE, page: 1, pageSize: 100 });
    expect(alice.logs.every((l) => l.userId === ALICE)).toBe(true);
    expect(alice.logs.map((l) => l.action)).not.toContain('EMAIL_CHANGED');
    expect(await logs.actions(ALICE)).toEqual(['PASSWORD_CHANGED', 'PLAN_CHANGED']);
  });

  it('filters by action', async () => {
    const logs = await seeded();
    const plan = await logs.list({ userId: ALICE, page: 1, pageSize: 20, action: 'PLAN_CHANGED' });
    expect(plan.total).toBe(5);
    expect(plan.logs.every((l) => l.action === 'PLAN_CHANGED')).toBe(true);
  });

  it('reports one page for an empty log', async () => {
    const logs = await seeded();
    expect(await logs.list({ userId: 'cccccccccccccccccccccccc', page: 1, pageSize: 20 })).toEqual({
      logs: [],
      total: 0,
      page: 1,
      pages: 1,
    });
  });

  it('pages from a cursor with the page number a page-by-page call would give', async () => {
    const logs = await seeded();
    const first = await logs.list({ userId: ALICE, page: 1, pageSize: 10 });
    const next = await logs.list({ userId: ALICE, page: 1, pageSize: 10, before: first.logs[9]!.id });
    expect(next).toEqual(await logs.list({ userId: ALICE, page: 2, pageSize: 10 }));
    const plan = await logs.list({ userId: ALICE, page: 1, pageSize: 2, action: 'PLAN_CHANGED' });
    const older = await logs.list({
      userId: ALICE,
      page: 1,
      pageSize: 2,
      action: 'PLAN_CHANGED',
      before: plan.logs[1]!.id,
    });
    expect(older).toMatchObject({ total: 5, page: 2, pages: 3 });
    expect(older.logs.map((l) => l.timestamp.getUTCMinutes())).toEqual([10, 5]);
  });

  it("refuses a cursor naming another user's entry, as if it were gone", async () => {
    const logs = await seeded();
    const [bobs] = (await logs.list({ userId: BOB, page: 1, pageSize: 1 })).logs;
    await expect(logs.list({ userId: ALICE, page: 1, pageSize: 10, before: bobs!.id })).rejects.toMatchObject(
      {
        code: 'NOT_FOUND',
      },
    );
  });
});
