// One set of cases for both store implementations: the in-memory fake audit's unit tests use and
// the mongoose store on a real FerretDB. A case that passes for one and fails for the other means a
// unit test somewhere proves less than it claims.
import { ferretDbPerCase } from '@coffer/common/testing';
import { auditModels } from './model';
import { fakeAuditStore } from './store.fake';
import { auditStore, type AuditStore, type NewAuditEntry } from './store';

const ferretDb = ferretDbPerCase('audit_contract');

async function onFerretDb(): Promise<AuditStore> {
  const models = auditModels(ferretDb.fresh());
  await models.AuditEntry.init();
  return auditStore(models);
}

const ADA = 'a'.repeat(24);
const GRACE = 'g'.repeat(24);
const T0 = new Date('2025-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

let events = 0;
const entry = (over: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  userId: ADA,
  eventId: `event-${++events}`,
  action: 'BACKUP_COMPLETED',
  entity: 'Backup',
  entityId: 'b'.repeat(24),
  actor: ADA,
  details: { databaseName: 'shop', size: 2048 },
  timestamp: T0,
  ...over,
});

describe.each([
  ['in-memory fake', async () => fakeAuditStore() as AuditStore],
  ['mongoose on FerretDB', onFerretDb],
])('audit store: %s', (_name, make) => {
  let store: AuditStore;
  beforeEach(async () => {
    store = await make();
  });

  it('writes an entry once per (event, action) and answers it as written', async () => {
    const e = entry();
    expect(await store.insert(e)).toBe(true);
    expect(await store.insert({ ...e, timestamp: at(1) })).toBe(false);
    expect(await store.insert({ ...e, action: 'BACKUP_DELETED_MANUAL' })).toBe(true);
    const { entries, total } = await store.page({ userId: ADA, action: 'BACKUP_COMPLETED' }, 0, 10);
    expect(total).toBe(1);
    expect(entries).toEqual([{ ...e, id: expect.stringMatching(/^[0-9a-f]{24}$/) }]);
  });

  it('answers a missing entity id and empty details as absent, not null', async () => {
    await store.insert(entry({ entityId: undefined, details: {}, action: 'PASSWORD_CHANGED' }));
    const [e] = (await store.page({ userId: ADA }, 0, 10)).entries;
    expect(e!.entityId).toBeUndefined();
    expect(e!.details).toEqual({});
  });

  it('pages newest first, ties in insertion order reversed, with the total of the filter', async () => {
    await store.insert(entry({ timestamp: at(1), details: { value: 'first' } }));
    await store.insert(entry({ timestamp: at(3), details: { value: 'newest' } }));
    await store.insert(entry({ timestamp: at(1), details: { value: 'second' } }));
    await store.insert(entry({ timestamp: at(2), action: 'AGENT_REGISTERED', details: { value: 'agent' } }));
    await store.insert(entry({ userId: GRACE, timestamp: at(9), details: { value: 'not ada' } }));
    const values = async (skip: number, limit: number, action?: string) => {
      const p = await store.page({ userId: ADA, action }, skip, limit);
      return { values: p.entries.map((e) => e.details.value), total: p.total };
    };
    expect(await values(0, 10)).toEqual({ values: ['newest', 'agent', 'second', 'first'], total: 4 });
    expect(await values(1, 2)).toEqual({ values: ['agent', 'second'], total: 4 });
    expect(await values(0, 10, 'BACKUP_COMPLETED')).toEqual({
      values: ['newest', 'second', 'first'],
      total: 3,
    });
    expect(await values(5, 10)).toEqual({ values: [], total: 4 });
  });

  it('pages from a cursor: older than it in (timestamp, id) order, ties across a page boundary kept', async () => {
    for (const [value, minute] of [
      ['a', 0],
      ['b', 2],
      ['c', 1],
      ['d', 3],
      ['e', 2],
    ] as const)
      await store.insert(entry({ timestamp: at(minute), details: { value } }));
    await store.insert(entry({ userId: GRACE, timestamp: at(1), details: { value: 'not ada' } }));
    const seen: string[] = [];
    const numbers: number[] = [];
    let start: number | { createdAt: Date; id: string } = 0;
    for (;;) {
      const p = await store.page({ userId: ADA }, start, 2);
      if (!p.entries.length) break;
      expect(p.total).toBe(5);
      numbers.push(p.newer);
      seen.push(...p.entries.map((e) => e.details.value!));
      const last = p.entries[p.entries.length - 1]!;
      start = { createdAt: last.timestamp, id: last.id };
      expect(await store.get(last.id)).toEqual({ userId: ADA, createdAt: last.timestamp, id: last.id });
    }
    // b and e share a minute: the later insert (e) first, whichever page each lands on.
    expect(seen.join('')).toBe('debca');
    expect(numbers).toEqual([0, 2, 4]);
    expect(await store.get('f'.repeat(24))).toBeNull();
    expect(await store.get('not-an-id')).toBeNull();
  });

  it("lists the distinct actions of a user's own entries", async () => {
    await store.insert(entry({ action: 'BACKUP_COMPLETED' }));
    await store.insert(entry({ action: 'AGENT_REGISTERED' }));
    await store.insert(entry({ action: 'BACKUP_COMPLETED' }));
    await store.insert(entry({ userId: GRACE, action: 'USER_DELETED' }));
    expect((await store.distinctActions(ADA)).sort()).toEqual(['AGENT_REGISTERED', 'BACKUP_COMPLETED']);
    expect(await store.distinctActions('c'.repeat(24))).toEqual([]);
  });

  it("removes only the user's own log and tells how many entries went", async () => {
    await store.insert(entry());
    await store.insert(entry());
    await store.insert(entry({ userId: GRACE }));
    expect(await store.removeByUser(ADA)).toBe(2);
    expect(await store.removeByUser(ADA)).toBe(0);
    expect((await store.page({ userId: ADA }, 0, 10)).total).toBe(0);
    expect((await store.page({ userId: GRACE }, 0, 10)).total).toBe(1);
  });

  it("knows a user is deleted from an admin's USER_DELETED entry naming them", async () => {
    await store.insert(entry({ userId: GRACE, action: 'USER_DELETED', entity: 'User', entityId: ADA }));
    await store.insert(entry({ action: 'BACKUP_DELETED_MANUAL', entityId: GRACE }));
    expect(await store.isDeletedUser(ADA)).toBe(true);
    expect(await store.isDeletedUser(GRACE)).toBe(false);
  });
});
