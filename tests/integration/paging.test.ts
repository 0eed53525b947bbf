// Cursor paging (`limit`, `before`) of the audit log and the admin's user list: pages concatenate
// to the whole list, rows added between pages neither repeat nor push rows off, a bad cursor is a
// 400 and another user's a 404. GET /api/backups and the restore history: backups.test.ts.
import { MongoClient, ObjectId } from 'mongodb';
import { seedAuditEntries } from './audit-seed';
import type { GetAuditLogsApiResponse } from '../../web/src/api/generated-types';
import { adminToken, api, newUser, type TestUser } from './helpers';

jest.setTimeout(120_000);

type LogPage = GetAuditLogsApiResponse;

let mongo: MongoClient;
beforeAll(async () => {
  mongo = await MongoClient.connect(process.env.COFFER_MONGO_URL!);
});
afterAll(() => mongo.close());

describe('GET /api/user/audit-logs in pages', () => {
  const seed = (u: TestUser, count: number, fromMinute = 0) =>
    seedAuditEntries(mongo, u.id, count, fromMinute);

  const get = async (u: TestUser, query: string) => {
    const res = await api('GET', `/api/user/audit-logs?${query}`, { token: u.token });
    expect({ query, status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({
      query,
      status: 200,
      body: 'ok',
    });
    return res.body as LogPage;
  };

  /** Walks the log `limit` entries at a time from its newest, calling `between` after each page. */
  async function walk(u: TestUser, limit: number, filter = '', between?: () => Promise<void>) {
    const seen: string[] = [];
    const numbers: number[] = [];
    let before: string | undefined;
    for (let pages = 0; pages < 50; pages++) {
      const page = await get(u, `limit=${limit}${filter}${before ? `&before=${before}` : ''}`);
      expect(page.logs.length).toBeLessThanOrEqual(limit);
      seen.push(...page.logs.map((l) => l.id));
      numbers.push(page.pagination.page);
      if (page.logs.length < limit) break;
      before = page.logs[page.logs.length - 1]!.id;
      await between?.();
    }
    return { seen, numbers };
  }

  it("keeps the spec's page-by-page answer, and limit and before walk the same entries", async () => {
    const u = await newUser('audit-pages');
    await seed(u, 45);
    const byPage: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await get(u, `page=${page}&action=`);
      expect(res.pagination).toEqual({ total: 45, page, pages: 3 });
      expect(res.logs.length).toBe(page < 3 ? 20 : 5);
      byPage.push(...res.logs.map((l) => l.id));
    }
    expect(await get(u, '')).toEqual(await get(u, 'page=1'));

    const { seen, numbers } = await walk(u, 20);
    expect(seen).toEqual(byPage);
    // The page number a cursor page reports is the one page-by-page paging gives it.
    expect(numbers).toEqual([1, 2, 3]);
    expect((await walk(u, 7)).seen).toEqual(byPage);
  });

  it('neither repeats nor skips an entry when newer ones arrive between pages', async () => {
    const u = await newUser('audit-growing');
    const first = await seed(u, 30, 100);
    const expected = (await walk(u, 100)).seen;
    expect(new Set(expected)).toEqual(new Set(first));
    let added = 0;
    const { seen } = await walk(u, 6, '', async () => {
      await seed(u, 2, 1000 + added); // newer than everything listed so far
      added += 2;
    });
    expect(added).toBeGreaterThan(0);
    expect(seen).toEqual(expected);
    // Page by page the same growth shifts rows onto the next page: the cursor is what avoids it.
    expect((await get(u, 'page=1')).pagination.total).toBe(30 + added);
  });

  it('pages within an action filter', async () => {
    const u = await newUser('audit-filter');
    await seed(u, 25);
    const all = await get(u, 'action=PLAN_CHANGED&limit=100');
    expect(all.pagination.total).toBe(12);
    expect(all.logs.every((l) => l.action === 'PLAN_CHANGED')).toBe(true);
    const { seen, numbers } = await walk(u, 5, '&action=PLAN_CHANGED');
    expect(seen).toEqual(all.logs.map((l) => l.id));
    expect(numbers).toEqual([1, 2, 3]);
  });

  it("refuses a bad limit or cursor with a 400, and another user's entry as a cursor with a 404", async () => {
    const u = await newUser('audit-bad');
    const other = await newUser('audit-other');
    const mine = (await seed(u, 3))[2]; // entry 2, sharing its minute with entry 1
    const [theirs] = await seed(other, 3);
    for (const limit of ['0', '101', '2.5', 'x']) {
      const r = await api('GET', `/api/user/audit-logs?limit=${limit}`, { token: u.token });
      expect({ limit, status: r.status, message: r.body.message }).toEqual({
        limit,
        status: 400,
        message: 'limit must be a whole number from 1 to 100',
      });
    }
    const malformed = await api('GET', '/api/user/audit-logs?before=nope', { token: u.token });
    expect([malformed.status, malformed.body.message]).toEqual([400, 'Invalid audit entry id']);
    const both = await api('GET', `/api/user/audit-logs?page=2&before=${mine}`, { token: u.token });
    expect(both.status).toBe(400);
    expect(both.body.message).toMatch(/page or before/);

    // Another user's entry leaks nothing: not its neighbours, not even that it exists.
    for (const before of [theirs, new ObjectId().toHexString()]) {
      const r = await api('GET', `/api/user/audit-logs?limit=5&before=${before}`, { token: u.token });
      expect([r.status, r.body.message]).toEqual([
        404,
        'That audit entry is no longer in your list: load the list again',
      ]);
    }
    const own = await get(u, `limit=5&before=${mine}`);
    expect(own.logs.map((l) => l.details.value)).toEqual(['entry 1', 'entry 0']);
    expect((await api('GET', `/api/user/audit-logs?before=${mine}`)).status).toBe(401);
  });
});

describe('GET /api/admin/users in pages', () => {
  /** The users page by page; null when the cursor's user was deleted meanwhile (the list is loaded again). */
  const walk = async (token: string, limit: number, between?: () => Promise<void>) => {
    const seen: string[] = [];
    let before: string | undefined;
    for (let pages = 0; pages < 1000; pages++) {
      const res = await api('GET', `/api/admin/users?limit=${limit}${before ? `&before=${before}` : ''}`, {
        token,
      });
      if (before && res.status === 404) return null;
      expect(res.status).toBe(200);
      const ids = res.body.map((x) => x._id);
      expect(ids.length).toBeLessThanOrEqual(limit);
      seen.push(...ids);
      if (ids.length < limit) break;
      before = ids[ids.length - 1];
      await between?.();
    }
    return seen;
  };
  const everyone = async (token: string) => {
    const res = await api('GET', '/api/admin/users', { token });
    expect(res.status).toBe(200);
    return res.body.map((x) => x._id);
  };

  it('walks every user once, newest first, while users sign up between pages', async () => {
    const admin = await adminToken();
    const [a, b] = [await newUser('admin-page-a'), await newUser('admin-page-b')].map((u) => u.id);
    const newestFirst = (ids: string[]) => expect(ids.indexOf(b!)).toBeLessThan(ids.indexOf(a!));
    // Other test files add and delete users meanwhile: what was there at the start and still is
    // at the end must be walked once, in the plain call's order; a user newer than the walk's
    // start is never in it (it is newer than every cursor). Should another file delete the user
    // a cursor names, the walk starts over, as the web app would.
    for (let attempt = 1; ; attempt++) {
      const start = await everyone(admin.token);
      newestFirst(start);
      const joined: string[] = [];
      // About eight pages, however many users the run has made so far.
      const limit = Math.min(100, Math.max(2, Math.ceil(start.length / 8)));
      const seen = await walk(admin.token, limit, async () => {
        if (joined.length < 3) joined.push((await newUser('admin-page-new')).id);
      });
      if (!seen && attempt < 3) continue;
      expect(seen).not.toBeNull();
      const end = new Set(await everyone(admin.token));
      expect(joined.length).toBeGreaterThan(0);
      expect(new Set(seen).size).toBe(seen!.length);
      expect(seen!.filter((id) => joined.includes(id))).toEqual([]);
      expect(seen!.filter((id) => start.includes(id) && end.has(id))).toEqual(
        start.filter((id) => end.has(id)),
      );
      expect(seen).toContain(a);
      newestFirst(seen!);
      break;
    }
  });

  it("is the admin's alone, and refuses a bad cursor with a 400 and an unknown user with a 404", async () => {
    const admin = await adminToken();
    const u = await newUser('admin-page-user');
    for (const token of [u.token, undefined]) {
      const r = await api('GET', `/api/admin/users?limit=5&before=${u.id}`, { token });
      expect(r.status).toBe(token ? 403 : 401);
    }
    const malformed = await api('GET', '/api/admin/users?before=nope', { token: admin.token });
    expect([malformed.status, malformed.body.message]).toEqual([400, 'Invalid user id']);
    const big = await api('GET', '/api/admin/users?limit=500', { token: admin.token });
    expect([big.status, big.body.message]).toEqual([400, 'limit must be a whole number from 1 to 100']);
    const unknown = await api('GET', `/api/admin/users?before=${new ObjectId().toHexString()}`, {
      token: admin.token,
    });
    expect([unknown.status, unknown.body.message]).toEqual([
      404,
      'That user is no longer in your list: load the list again',
    ]);
    // `before` alone: a default-sized page of the users older than that one.
    const older = await api('GET', `/api/admin/users?before=${u.id}`, { token: admin.token });
    expect(older.status).toBe(200);
    expect(older.body.map((x) => x._id)).not.toContain(u.id);
    expect(older.body.length).toBeLessThanOrEqual(50);
  });
});
