import { ADMIN, kbWorld } from '../test-world';

describe('kb articles', () => {
  it('gives a new article the spec defaults, its author, and keeps the markdown as written', async () => {
    const w = kbWorld();
    const content = '  # Title\n\n<b>raw</b> *markdown*  \n';
    const a = await w.articles.create(ADMIN, { title: 'First', slug: 'first', content });
    expect(a).toMatchObject({
      title: 'First',
      slug: 'first',
      content,
      category: 'getting-started',
      isPublished: true,
      order: 0,
      tags: [],
      author: ADMIN,
      createdAt: w.clock.now(),
      updatedAt: w.clock.now(),
    });
    expect(w.published).toEqual([
      {
        subject: 'kb.article.created',
        data: { userId: ADMIN.id, articleId: a.id, title: 'First', slug: 'first' },
      },
    ]);
  });

  it('refuses a second article with a taken slug with a 409 that names it', async () => {
    const w = kbWorld();
    await w.articles.create(ADMIN, w.draft('setup-guide'));
    await expect(w.articles.create(ADMIN, w.draft('setup-guide', { title: 'Other' }))).rejects.toMatchObject({
      kind: 'CONFLICT',
      message: "An article with the slug 'setup-guide' already exists. Choose another slug.",
    });
    const other = await w.articles.create(ADMIN, w.draft('other'));
    await expect(w.articles.update(ADMIN, other.id, { slug: 'setup-guide' })).rejects.toMatchObject({
      kind: 'CONFLICT',
    });
    expect((await w.articles.all()).map((a) => a.slug).sort()).toEqual(['other', 'setup-guide']);
  });

  it('hides drafts from the public list, counts and slug lookups, but not from admins', async () => {
    const w = kbWorld();
    await w.articles.create(ADMIN, w.draft('public', { tags: ['agent'], category: 'setup' }));
    const draft = await w.articles.create(
      ADMIN,
      w.draft('secret', { tags: ['agent', 'draft-only'], category: 'faq', isPublished: false }),
    );
    const list = await w.articles.list({ page: 1 });
    expect(list.articles.map((a) => a.slug)).toEqual(['public']);
    expect(list.total).toBe(1);
    expect(await w.articles.categories()).toEqual([{ id: 'setup', count: 1 }]);
    expect(await w.articles.tags()).toEqual([{ id: 'agent', count: 1 }]);
    await expect(w.articles.bySlug('secret', false)).rejects.toMatchObject({
      kind: 'NOT_FOUND',
      message: 'Article not found',
    });
    await expect(w.articles.bySlug('secret', true)).resolves.toMatchObject({ id: draft.id });
    expect((await w.articles.all()).map((a) => a.slug).sort()).toEqual(['public', 'secret']);
  });

  it('searches title, content and tags by word prefixes, all words required, accents and case ignored', async () => {
    const w = kbWorld();
    await w.articles.create(
      ADMIN,
      w.draft('restore', { title: 'Restoring a backup', content: 'Use mongorestore.' }),
    );
    await w.articles.create(
      ADMIN,
      w.draft('keys', { title: 'Key handling', content: 'Export the clé.', tags: ['Security'] }),
    );
    await w.articles.create(
      ADMIN,
      w.draft('windows', { title: 'Windows service', content: 'WinSW wrapper' }),
    );
    const slugs = async (search: string) =>
      (await w.articles.list({ search, page: 1 })).articles.map((a) => a.slug);
    expect(await slugs('restor')).toEqual(['restore']); // title and content prefixes
    expect(await slugs('MONGOREST')).toEqual(['restore']);
    expect(await slugs('cle')).toEqual(['keys']); // content, accent dropped
    expect(await slugs('secur')).toEqual(['keys']); // tag
    expect(await slugs('key export')).toEqual(['keys']); // every word
    expect(await slugs('key windows')).toEqual([]);
    expect(await slugs('ore')).toEqual([]); // a prefix, not a substring
    expect(await slugs('!!!')).toEqual([]); // no word at all finds nothing
    expect((await slugs('   ')).sort()).toEqual(['keys', 'restore', 'windows']); // blank is no search
  });

  it('filters by category and by exact tag, combined with search', async () => {
    const w = kbWorld();
    await w.articles.create(ADMIN, w.draft('a', { category: 'setup', tags: ['linux', 'agent'] }));
    await w.articles.create(ADMIN, w.draft('b', { category: 'setup', tags: ['windows', 'agent'] }));
    await w.articles.create(ADMIN, w.draft('c', { category: 'faq', tags: ['linux'] }));
    const slugs = async (q: object) =>
      (await w.articles.list({ page: 1, ...q })).articles.map((a) => a.slug).sort();
    expect(await slugs({ category: 'setup' })).toEqual(['a', 'b']);
    expect(await slugs({ tag: 'linux' })).toEqual(['a', 'c']);
    expect(await slugs({ tag: 'Linux' })).toEqual([]);
    expect(await slugs({ category: 'setup', tag: 'linux' })).toEqual(['a']);
    expect(await slugs({ category: 'faq', search: 'about' })).toEqual(['c']);
  });

  it('pages by order, then newest update, with total, page and pages', async () => {
    const w = kbWorld();
    for (let i = 0; i < 23; i++) {
      await w.articles.create(ADMIN, w.draft(`p${i}`, { order: i === 5 ? -1 : 0 }));
      w.clock.advance(1000);
    }
    const p1 = await w.articles.list({ page: 1 });
    expect(p1).toMatchObject({ total: 23, page: 1, pages: 3 });
    expect(p1.articles).toHaveLength(10);
    expect(p1.articles[0]!.slug).toBe('p5'); // lowest order first
    expect(p1.articles[1]!.slug).toBe('p22'); // then newest
    const p3 = await w.articles.list({ page: 3 });
    expect(p3.articles.map((a) => a.slug)).toEqual(['p2', 'p1', 'p0']);
    expect(await w.articles.list({ page: 9 })).toMatchObject({ articles: [], total: 23, page: 9, pages: 3 });
    expect(await w.articles.list({ page: 1, category: 'faq' })).toMatchObject({ total: 0, pages: 1 });
  });

  it('counts published articles per category in the fixed order and tags most used first', async () => {
    const w = kbWorld();
    await w.articles.create(ADMIN, w.draft('a', { category: 'security', tags: ['key', 'agent'] }));
    await w.articles.create(ADMIN, w.draft('b', { category: 'getting-started', tags: ['agent'] }));
    await w.articles.create(ADMIN, w.draft('c', { category: 'security', tags: ['agent', 'key', 'key'] }));
    expect(await w.articles.categories()).toEqual([
      { id: 'getting-started', count: 1 },
      { id: 'security', count: 2 },
    ]);
    // A tag given twice counts once: it is stored once.
    expect(await w.articles.tags()).toEqual([
      { id: 'agent', count: 3 },
      { id: 'key', count: 2 },
    ]);
  });

  it('updates only isPublished from the list switch: publish events, search field untouched', async () => {
    const w = kbWorld();
    const a = await w.articles.create(ADMIN, w.draft('toggle', { isPublished: false }));
    w.published.length = 0;
    w.clock.advance(60_000);
    const on = await w.articles.update(ADMIN, a.id, { isPublished: true });
    expect(on).toMatchObject({
      isPublished: true,
      title: a.title,
      content: a.content,
      updatedAt: w.clock.now(),
    });
    expect(on.searchTokens).toEqual(a.searchTokens);
    await w.articles.update(ADMIN, a.id, { isPublished: false });
    expect(w.published.map((p) => p.subject)).toEqual(['kb.article.published', 'kb.article.unpublished']);
  });

  it('saves a full edit: new text is searchable, the old is not, the author stays the creator', async () => {
    const w = kbWorld();
    const a = await w.articles.create(ADMIN, w.draft('edit', { content: 'alpha' }));
    const other = { id: 'b'.repeat(24), name: 'Bo' };
    w.published.length = 0;
    const b = await w.articles.update(other, a.id, {
      title: 'Edited',
      content: 'omega',
      tags: ['x', 'x'],
      isPublished: true,
    });
    expect(b).toMatchObject({ title: 'Edited', content: 'omega', tags: ['x'], author: ADMIN });
    expect((await w.articles.list({ search: 'omega', page: 1 })).total).toBe(1);
    expect((await w.articles.list({ search: 'alpha', page: 1 })).total).toBe(0);
    // isPublished did not change: only the edit is recorded, by the admin who made it.
    expect(w.published).toEqual([
      {
        subject: 'kb.article.updated',
        data: { userId: other.id, articleId: a.id, title: 'Edited', slug: 'edit' },
      },
    ]);
  });

  it('deletes for good; a missing or malformed id is 404', async () => {
    const w = kbWorld();
    const a = await w.articles.create(ADMIN, w.draft('gone'));
    await w.articles.remove(ADMIN, a.id);
    expect(w.published.at(-1)).toEqual({
      subject: 'kb.article.deleted',
      data: { userId: ADMIN.id, articleId: a.id, title: a.title, slug: 'gone' },
    });
    await expect(w.articles.bySlug('gone', true)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    await expect(w.articles.remove(ADMIN, a.id)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    await expect(w.articles.update(ADMIN, 'c'.repeat(24), { isPublished: true })).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
    await expect(w.articles.update(ADMIN, 'nope', { isPublished: true })).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
  });
});
