// One set of cases for both store implementations: the in-memory fake kb's domain tests use and
// the mongoose store on a real FerretDB. A case that passes for one and fails for the other means a
// unit test somewhere proves less than it claims.
import { isDuplicateKeyError } from '@coffer/common';
import { ferretDbPerCase } from '@coffer/common/testing';
import { kbModels } from '../model';
import { searchTokens } from '../domain/search';
import { fakeArticleStore } from './fake';
import { mongoArticleStore } from './index';
import type { ArticleStore, NewArticle } from './types';

const ferretDb = ferretDbPerCase('kb_contract');

async function onFerretDb(): Promise<ArticleStore> {
  const db = ferretDb.fresh();
  const models = kbModels(db);
  await Promise.all(Object.values(models).map((m) => m.init()));
  return mongoArticleStore(models);
}

const T0 = new Date('2025-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

const article = (slug: string, over: Partial<NewArticle> = {}): NewArticle => {
  const base = {
    title: `Title ${slug}`,
    slug,
    content: `Content of ${slug}`,
    category: 'setup' as const,
    tags: [] as string[],
    isPublished: true,
    order: 0,
    author: { id: 'a'.repeat(24), name: 'Ada' },
    excerpt: `Content of ${slug}`,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
  return { ...base, searchTokens: over.searchTokens ?? searchTokens(base) };
};

describe.each([
  ['in-memory fake', async () => fakeArticleStore() as ArticleStore],
  ['mongoose on FerretDB', onFerretDb],
])('kb store: %s', (_name, make) => {
  let store: ArticleStore;
  beforeEach(async () => {
    store = await make();
  });

  it('inserts and reads back every field; a taken slug is a duplicate-key error', async () => {
    const a = await store.insert(article('one', { tags: ['b', 'a'], order: 3, isPublished: false }));
    expect(a.id).toMatch(/^[0-9a-f]{24}$/);
    expect(await store.get(a.id)).toEqual(a);
    expect(await store.bySlug('one')).toEqual(a);
    expect(a).toMatchObject({ tags: ['b', 'a'], order: 3, isPublished: false, createdAt: T0 });
    expect(await store.get('b'.repeat(24))).toBeNull();
    expect(await store.get('not-an-id')).toBeNull();
    expect(await store.bySlug('two')).toBeNull();
    const clash = await store.insert(article('one')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isDuplicateKeyError(clash)).toBe(true);
  });

  it('pages the matching articles by order, newest update, then id, without their markdown', async () => {
    await store.insert(article('old', { updatedAt: at(1) }));
    await store.insert(article('new', { updatedAt: at(5) }));
    await store.insert(article('first', { order: -2, updatedAt: at(0) }));
    await store.insert(article('last', { order: 7, updatedAt: at(9) }));
    await store.insert(article('hidden', { isPublished: false, order: -9 }));
    const page = await store.page({ publishedOnly: true }, 0, 3);
    expect(page.total).toBe(4);
    expect(page.articles.map((a) => a.slug)).toEqual(['first', 'new', 'old']);
    expect(page.articles[0]).not.toHaveProperty('content');
    expect(page.articles[0]).not.toHaveProperty('searchTokens');
    expect((await store.page({ publishedOnly: true }, 3, 3)).articles.map((a) => a.slug)).toEqual(['last']);
    expect((await store.page({ publishedOnly: false }, 0, 1)).articles.map((a) => a.slug)).toEqual([
      'hidden',
    ]);
  });

  it('filters by category, exact tag, and word prefixes over the search tokens (all words)', async () => {
    await store.insert(
      article('a', { category: 'faq', tags: ['linux', 'agent'], title: 'Install on Linux' }),
    );
    await store.insert(article('b', { category: 'faq', tags: ['windows'], title: 'Install on Windows' }));
    await store.insert(article('c', { category: 'usage', tags: ['linux'], title: 'Restore by hand' }));
    const slugs = async (f: object) =>
      (await store.page({ publishedOnly: true, ...f }, 0, 10)).articles.map((a) => a.slug).sort();
    expect(await slugs({ category: 'faq' })).toEqual(['a', 'b']);
    expect(await slugs({ tag: 'linux' })).toEqual(['a', 'c']);
    expect(await slugs({ tag: 'lin' })).toEqual([]);
    expect(await slugs({ words: ['inst'] })).toEqual(['a', 'b']);
    expect(await slugs({ words: ['inst', 'win'] })).toEqual(['b']);
    expect(await slugs({ words: ['stall'] })).toEqual([]);
    expect(await slugs({ words: ['hand'], category: 'usage', tag: 'linux' })).toEqual(['c']);
    // Words are regex-escaped: a metacharacter matches itself, not everything.
    expect(await slugs({ words: ['.*'] })).toEqual([]);
  });

  it('updates one article and returns it before and after; a clash or a missing id changes nothing', async () => {
    const a = await store.insert(article('a'));
    await store.insert(article('b'));
    const res = await store.update(a.id, { title: 'New', isPublished: false, updatedAt: at(3) });
    expect(res!.before).toEqual(a);
    expect(res!.after).toEqual({ ...a, title: 'New', isPublished: false, updatedAt: at(3) });
    expect(await store.get(a.id)).toEqual(res!.after);
    const clash = await store.update(a.id, { slug: 'b', updatedAt: at(4) }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isDuplicateKeyError(clash)).toBe(true);
    expect((await store.get(a.id))!.slug).toBe('a');
    expect(await store.update('c'.repeat(24), { title: 'x', updatedAt: at(5) })).toBeNull();
  });

  it('removes an article once, returning it', async () => {
    const a = await store.insert(article('a'));
    expect(await store.remove(a.id)).toEqual(a);
    expect(await store.remove(a.id)).toBeNull();
    expect(await store.remove('nope')).toBeNull();
    expect(await store.all()).toEqual([]);
  });

  it('lists every article newest update first', async () => {
    await store.insert(article('x', { updatedAt: at(1), isPublished: false }));
    await store.insert(article('y', { updatedAt: at(2) }));
    expect((await store.all()).map((a) => a.slug)).toEqual(['y', 'x']);
  });

  it('counts published articles per category (fixed order) and per tag (most used first, then by name)', async () => {
    await store.insert(article('a', { category: 'security', tags: ['key', 'agent'] }));
    await store.insert(article('b', { category: 'getting-started', tags: ['agent', 'zeta'] }));
    await store.insert(article('c', { category: 'security', tags: ['agent', 'key'] }));
    await store.insert(article('d', { category: 'faq', tags: ['agent', 'draft'], isPublished: false }));
    expect(await store.categoryCounts()).toEqual([
      { id: 'getting-started', count: 1 },
      { id: 'security', count: 2 },
    ]);
    expect(await store.tagCounts(10)).toEqual([
      { id: 'agent', count: 3 },
      { id: 'key', count: 2 },
      { id: 'zeta', count: 1 },
    ]);
    expect(await store.tagCounts(1)).toEqual([{ id: 'agent', count: 3 }]);
  });

  it('seeds: ensure inserts by slug once, the marker is set once, foreign articles are counted', async () => {
    expect(await store.seeded()).toBe(false);
    await store.ensure(article('seed-1'));
    await store.ensure(article('seed-1', { title: 'changed' }));
    expect((await store.all()).map((a) => [a.slug, a.title])).toEqual([['seed-1', 'Title seed-1']]);
    expect(await store.countOutside(['seed-1'])).toBe(0);
    await store.insert(article('mine'));
    expect(await store.countOutside(['seed-1'])).toBe(1);
    await store.markSeeded(T0);
    await store.markSeeded(at(1));
    expect(await store.seeded()).toBe(true);
  });
});
