// The knowledge base through the gateway on the real stack: what visitors read (published articles
// only, search, filters, counts, paging), what admins write, the authorisation ladder, hostile
// input, the seeded articles and the audit trail of every change.
import crypto from 'node:crypto';
import type { Article } from '../../web/src/api/generated-types';
import { adminToken, api, eventually, newUser } from './helpers';

jest.setTimeout(60_000);

/** A word no other article (or test run) contains, so counts and searches are this test's own. */
const unique = (prefix: string) => `${prefix}${crypto.randomBytes(5).toString('hex')}`;

let admin: { id: string; token: string };
beforeAll(async () => {
  admin = await adminToken();
});

async function create(body: Record<string, unknown>, token = admin.token) {
  const res = await api('POST', '/api/kb', { token, body });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Article;
}

const article = (over: Record<string, unknown> = {}) => {
  const slug = unique('kb-test-');
  return { title: `Article ${slug}`, slug, content: `# ${slug}\n\nBody.`, ...over };
};

describe('the seeded knowledge base', () => {
  it('is published at first start with an article in every category, each readable by its slug', async () => {
    const cats = await api('GET', '/api/kb/categories');
    expect(cats.status).toBe(200);
    expect(cats.body.map((c) => c._id)).toEqual(
      expect.arrayContaining(['getting-started', 'setup', 'usage', 'troubleshooting', 'faq', 'security']),
    );
    const linux = await api('GET', '/api/kb/install-agent-linux');
    expect(linux.status).toBe(200);
    expect(linux.body).toMatchObject({
      title: 'Installing the agent on Linux',
      category: 'setup',
      isPublished: true,
      author: { name: 'Coffer Team' },
    });
    expect(linux.body.content).toContain('curl -fsSL https://COFFER/downloads/install.sh');
  });
});

describe('public reading', () => {
  it('lists published articles only, with excerpts and no markdown, and hides drafts by slug', async () => {
    const tag = unique('tag');
    const pub = await create(article({ tags: [tag], content: '## Hello\n\n**Bold** text' }));
    const draft = await create(article({ tags: [tag], isPublished: false }));
    const list = await api('GET', `/api/kb?tag=${tag}`);
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ total: 1, page: 1, pages: 1 });
    expect(list.body.articles).toEqual([
      expect.objectContaining({ _id: pub._id, excerpt: 'Hello Bold text' }),
    ]);
    expect(list.body.articles[0]).not.toHaveProperty('content');

    const hidden = await api('GET', `/api/kb/${draft.slug}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toMatchObject({ message: 'Article not found', code: 'NOT_FOUND' });
    const user = await newUser();
    expect((await api('GET', `/api/kb/${draft.slug}`, { token: user.token })).status).toBe(404);
    // The admin list's View opens drafts: an admin's token finds them.
    const asAdmin = await api('GET', `/api/kb/${draft.slug}`, { token: admin.token });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body.isPublished).toBe(false);
    expect((await api('GET', '/api/kb/no-such-article')).status).toBe(404);
  });

  it('searches title, content and tags by word prefixes (every word must match)', async () => {
    const word = unique('zq');
    const a = await create(article({ title: `Rotating ${word} keys` }));
    const b = await create(article({ content: `How to ${word}alpha restore by hand` }));
    const c = await create(article({ tags: [`${word}-tag`] }));
    const slugs = async (search: string) => {
      const res = await api('GET', `/api/kb?search=${encodeURIComponent(search)}`);
      expect(res.status).toBe(200);
      return res.body.articles.map((x) => x.slug).sort();
    };
    expect(await slugs(word)).toEqual([a.slug, b.slug, c.slug].sort());
    expect(await slugs(`${word.toUpperCase()} rotat`)).toEqual([a.slug]);
    expect(await slugs(`${word}alpha`)).toEqual([b.slug]);
    expect(await slugs(`${word} tag`)).toEqual([c.slug]);
    expect(await slugs(`${word} nothing-like-this`)).toEqual([]);
  });

  it('filters by category and tag, counts published articles only, and pages 10 at a time', async () => {
    const tag = unique('page');
    const before = await api('GET', '/api/kb/categories');
    const faqBefore = before.body.find((c) => c._id === 'faq')?.count ?? 0;
    for (let i = 0; i < 12; i++)
      await create(article({ tags: [tag], category: i < 3 ? 'faq' : 'usage', order: i }));
    await create(article({ tags: [tag], category: 'faq', isPublished: false }));

    const p1 = await api('GET', `/api/kb?tag=${tag}`);
    expect(p1.body.pagination).toEqual({ total: 12, page: 1, pages: 2 });
    expect(p1.body.articles).toHaveLength(10);
    expect(p1.body.articles.map((a) => a.order)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const p2 = await api('GET', `/api/kb?tag=${tag}&page=2`);
    expect(p2.body.articles.map((a) => a.order)).toEqual([10, 11]);
    expect(p2.body.pagination).toEqual({ total: 12, page: 2, pages: 2 });

    const faq = await api('GET', `/api/kb?tag=${tag}&category=faq`);
    expect(faq.body.pagination.total).toBe(3);
    expect(faq.body.articles.every((a) => a.category === 'faq')).toBe(true);
    expect((await api('GET', `/api/kb?tag=${tag}&category=`)).body.pagination.total).toBe(12);

    const tags = await api('GET', '/api/kb/tags');
    expect(tags.status).toBe(200);
    // 12 published articles make it the most used tag; the draft is not counted.
    expect(tags.body[0]).toEqual({ _id: tag, count: 12 });
    const after = await api('GET', '/api/kb/categories');
    expect(after.body.find((c) => c._id === 'faq')!.count).toBe(faqBefore + 3);
  });
});

describe('admin writing', () => {
  it('creates with the spec defaults and the admin as author; a taken slug is a 409 that says so', async () => {
    const body = article();
    const res = await api('POST', '/api/kb', { token: admin.token, body: { _id: 'ignored', ...body } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      ...body,
      category: 'getting-started',
      isPublished: true,
      order: 0,
      tags: [],
      author: { _id: admin.id },
    });
    expect(res.body._id).toMatch(/^[0-9a-f]{24}$/);
    const clash = await api('POST', '/api/kb', {
      token: admin.token,
      body: { ...article(), slug: body.slug },
    });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({
      code: 'CONFLICT',
      message: `An article with the slug '${body.slug}' already exists. Choose another slug.`,
    });
  });

  it('stores markdown exactly as written', async () => {
    const content =
      '# T\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))\n\n```js\nconst a = 1;\n```\n  ';
    const a = await create(article({ content }));
    expect((await api('GET', `/api/kb/${a.slug}`)).body.content).toBe(content);
  });

  it('publishes and unpublishes with only isPublished, and saves a full edit', async () => {
    const a = await create(article({ isPublished: false }));
    const on = await api('PUT', `/api/kb/${a._id}`, { token: admin.token, body: { isPublished: true } });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ isPublished: true, title: a.title, content: a.content });
    expect((await api('GET', `/api/kb/${a.slug}`)).status).toBe(200);

    // The editor sends the article back whole, read-only fields included.
    const edited = { ...on.body, title: 'Edited title', tags: ['edited'], category: 'security', order: 4 };
    const saved = await api('PUT', `/api/kb/${a._id}`, { token: admin.token, body: edited });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      title: 'Edited title',
      tags: ['edited'],
      category: 'security',
      order: 4,
    });
    expect(saved.body.createdAt).toBe(a.createdAt);

    const off = await api('PUT', `/api/kb/${a._id}`, { token: admin.token, body: { isPublished: false } });
    expect(off.body.isPublished).toBe(false);
    expect((await api('GET', `/api/kb/${a.slug}`)).status).toBe(404);
    const all = await api('GET', '/api/kb/admin/all', { token: admin.token });
    expect(all.body.find((x) => x._id === a._id)).toMatchObject({
      isPublished: false,
      title: 'Edited title',
    });
  });

  it('deletes for good; a second delete or an unknown id is 404', async () => {
    const a = await create(article());
    const del = await api('DELETE', `/api/kb/${a._id}`, { token: admin.token });
    expect(del.status).toBe(200);
    expect((await api('GET', `/api/kb/${a.slug}`, { token: admin.token })).status).toBe(404);
    expect((await api('DELETE', `/api/kb/${a._id}`, { token: admin.token })).status).toBe(404);
    const missing = await api('PUT', `/api/kb/${'0'.repeat(24)}`, {
      token: admin.token,
      body: { isPublished: true },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('Article not found');
  });

  it('writes ARTICLE_CREATED, _PUBLISHED, _UPDATED and _DELETED to the acting admin’s audit log', async () => {
    const a = await create(article({ isPublished: false }));
    await api('PUT', `/api/kb/${a._id}`, { token: admin.token, body: { isPublished: true } });
    await api('PUT', `/api/kb/${a._id}`, { token: admin.token, body: { title: 'Audited' } });
    await api('DELETE', `/api/kb/${a._id}`, { token: admin.token });
    for (const action of ['ARTICLE_CREATED', 'ARTICLE_PUBLISHED', 'ARTICLE_UPDATED', 'ARTICLE_DELETED']) {
      await eventually(async () => {
        const logs = await api('GET', `/api/user/audit-logs?action=${action}`, { token: admin.token });
        expect(logs.status).toBe(200);
        expect(logs.body.logs).toContainEqual(
          expect.objectContaining({
            action,
            entity: 'Article',
            entityId: a._id,
            actor: 'User',
            details: expect.objectContaining({ value: a.slug }),
          }),
        );
      });
    }
  });
});

describe('authorisation', () => {
  it('answers 401 without a token and 403 to a user for every admin endpoint', async () => {
    const user = await newUser();
    const a = await create(article());
    const calls: Array<[string, string, unknown]> = [
      ['GET', '/api/kb/admin/all', undefined],
      ['POST', '/api/kb', article()],
      ['PUT', `/api/kb/${a._id}`, { isPublished: false }],
      ['DELETE', `/api/kb/${a._id}`, undefined],
    ];
    for (const [method, path, body] of calls) {
      const anonymous = await api(method, path, { body });
      expect({ method, path, status: anonymous.status }).toEqual({ method, path, status: 401 });
      const asUser = await api(method, path, { body, token: user.token });
      expect({ method, path, status: asUser.status, message: asUser.body.message }).toEqual({
        method,
        path,
        status: 403,
        message: 'Admin access required',
      });
    }
    // Nothing of the above changed the article.
    expect((await api('GET', `/api/kb/${a.slug}`)).body).toMatchObject({ isPublished: true, title: a.title });
  });
});

describe('hostile input', () => {
  it('refuses query operators and unknown parameters instead of ignoring them', async () => {
    const res = await api('GET', '/api/kb?search[$ne]=x');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^Unknown query parameter: search\[\$ne\]/);
    const twice = await api('GET', '/api/kb?search=a&search=b');
    expect(twice.status).toBe(400);
    expect(twice.body.message).toBe('search must be text');
    const cat = await api('GET', '/api/kb?category=nosql');
    expect(cat.status).toBe(400);
    expect(cat.body.message).toMatch(/^category must be one of getting-started/);
    expect((await api('GET', '/api/kb?page=0')).status).toBe(400);
    expect((await api('GET', `/api/kb?search=${'a'.repeat(201)}`)).status).toBe(400);
  });

  it('treats search text as words, never as a pattern', async () => {
    for (const search of ['.*', '^$', '(?:)', '\\', '[^]']) {
      const res = await api('GET', `/api/kb?search=${encodeURIComponent(search)}`);
      expect({ search, status: res.status, total: res.body.pagination.total }).toEqual({
        search,
        status: 200,
        total: 0,
      });
    }
  });

  it('refuses operator objects in bodies with field messages, in the spec order', async () => {
    const cases: Array<[unknown, string]> = [
      [{ $gt: '' }, 'Title is required'],
      [{ title: { $gt: '' }, slug: 'x', content: 'y' }, 'Title must be text'],
      [{ title: '', slug: '', content: '' }, 'Title is required'],
      [{ title: 'T', slug: '', content: '' }, 'Slug is required'],
      [{ title: 'T', slug: 'ok-slug', content: '   ' }, 'Content is required'],
      [
        { ...article(), category: { $ne: null } },
        'Category must be one of getting-started, setup, usage, troubleshooting, faq, security',
      ],
      [{ ...article(), tags: { $in: ['a'] } }, 'Tags must be a list of words'],
      [{ ...article(), isPublished: 'yes' }, 'isPublished must be true or false'],
    ];
    for (const [body, message] of cases) {
      const res = await api('POST', '/api/kb', { token: admin.token, body });
      expect({ body, status: res.status, message: res.body.message }).toEqual({ body, status: 400, message });
    }
    const a = await create(article());
    const upd = await api('PUT', `/api/kb/${a._id}`, {
      token: admin.token,
      body: { $set: { isPublished: false } },
    });
    expect(upd.status).toBe(400);
    expect(upd.body.message).toBe('Nothing to update: send the article, or only isPublished');
  });

  it('refuses oversized markdown with a 400 that names the limit', async () => {
    const res = await api('POST', '/api/kb', {
      token: admin.token,
      body: article({ content: 'x'.repeat(50_001) }),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      message: 'Content must be at most 50,000 characters',
      field: 'content',
    });
    // The largest article fits.
    expect(
      (await api('POST', '/api/kb', { token: admin.token, body: article({ content: 'x'.repeat(50_000) }) }))
        .status,
    ).toBe(201);
  });

  it('refuses bad slugs, in paths and in bodies', async () => {
    for (const slug of ['Upper-Case', '..%2F..%2Fetc', '%24where', 'a--b', '-lead', `${'a'.repeat(201)}`]) {
      const res = await api('GET', `/api/kb/${slug}`);
      expect({ slug, status: res.status }).toEqual({ slug, status: 400 });
      expect(res.body.message).toMatch(/^Invalid slug/);
    }
    for (const slug of ['has space', 'UPPER', 'tags', 'categories', 'ümlaut']) {
      const res = await api('POST', '/api/kb', { token: admin.token, body: article({ slug }) });
      expect({ slug, status: res.status }).toEqual({ slug, status: 400 });
    }
    const badId = await api('PUT', '/api/kb/not-an-id', { token: admin.token, body: { isPublished: true } });
    expect(badId.status).toBe(400);
    expect(badId.body.message).toBe('Invalid article id');
  });
});
