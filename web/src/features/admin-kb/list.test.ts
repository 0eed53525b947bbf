import { DEFAULT_SORT, matchesSearch, nextSort, visibleArticles } from './list';

const article = (over: Partial<Parameters<typeof matchesSearch>[0]> & { id: string }) => ({
  title: 'Title',
  slug: 'slug',
  category: 'setup' as const,
  tags: [] as string[],
  isPublished: true,
  order: 0,
  updatedAt: '2025-01-01T00:00:00.000Z',
  ...over,
});

const a = article({
  id: 'a',
  title: 'Install on Linux',
  slug: 'install-linux',
  tags: ['agent'],
  order: 2,
  updatedAt: '2025-03-01T00:00:00.000Z',
});
const b = article({
  id: 'b',
  title: 'backup schedules',
  slug: 'schedules',
  category: 'usage',
  tags: ['cron'],
  isPublished: false,
  order: 1,
  updatedAt: '2025-05-01T00:00:00.000Z',
});
const c = article({
  id: 'c',
  title: 'Key handling',
  slug: 'keys',
  category: 'security',
  tags: ['aes', 'agent'],
  order: 3,
  updatedAt: '2025-01-01T00:00:00.000Z',
});
const all = [a, b, c];
const none = { search: '', category: '' as const, status: 'all' as const };
const ids = (list: { id: string }[]) => list.map((x) => x.id);

describe('admin article list', () => {
  it('sorts by newest update first by default', () => {
    expect(ids(visibleArticles(all, none, DEFAULT_SORT))).toEqual(['b', 'a', 'c']);
  });

  it('a new column sorts ascending, the same column again turns it round (product §9)', () => {
    const byTitle = nextSort(DEFAULT_SORT, 'title');
    expect(byTitle).toEqual({ key: 'title', direction: 'asc' });
    expect(ids(visibleArticles(all, none, byTitle))).toEqual(['b', 'a', 'c']);
    expect(ids(visibleArticles(all, none, nextSort(byTitle, 'title')))).toEqual(['c', 'a', 'b']);
    expect(nextSort(DEFAULT_SORT, 'updatedAt')).toEqual({ key: 'updatedAt', direction: 'asc' });
    expect(ids(visibleArticles(all, none, { key: 'order', direction: 'asc' }))).toEqual(['b', 'a', 'c']);
    expect(ids(visibleArticles(all, none, { key: 'category', direction: 'asc' }))).toEqual(['c', 'a', 'b']);
  });

  it('searches title, slug and tags, case-insensitively', () => {
    expect(ids(visibleArticles(all, { ...none, search: 'LINUX' }, DEFAULT_SORT))).toEqual(['a']);
    expect(ids(visibleArticles(all, { ...none, search: 'keys' }, DEFAULT_SORT))).toEqual(['c']);
    expect(ids(visibleArticles(all, { ...none, search: 'agent' }, DEFAULT_SORT))).toEqual(['a', 'c']);
    expect(ids(visibleArticles(all, { ...none, search: 'agent aes' }, DEFAULT_SORT))).toEqual(['c']);
    expect(ids(visibleArticles(all, { ...none, search: 'nothing' }, DEFAULT_SORT))).toEqual([]);
  });

  it('filters by category and by status', () => {
    expect(ids(visibleArticles(all, { ...none, category: 'security' }, DEFAULT_SORT))).toEqual(['c']);
    expect(ids(visibleArticles(all, { ...none, status: 'draft' }, DEFAULT_SORT))).toEqual(['b']);
    expect(ids(visibleArticles(all, { ...none, status: 'published' }, DEFAULT_SORT))).toEqual(['a', 'c']);
  });
});
