import {
  clearAll,
  clearEverything,
  hasActiveFilters,
  pageItems,
  readFilters,
  toggleCategory,
  toggleTag,
  toPage,
  withoutFilter,
  withSearch,
  writeFilters,
  type KbFilters,
} from './filters';

const f = (over: Partial<KbFilters> = {}): KbFilters => ({
  search: '',
  category: '',
  tag: '',
  page: 1,
  ...over,
});
const qs = (filters: KbFilters) => writeFilters(filters).toString();

describe('kb list filters in the address', () => {
  it('reads search, category, tag and page', () => {
    expect(readFilters(new URLSearchParams('search=restore+agent&category=setup&tag=linux&page=3'))).toEqual(
      f({ search: 'restore agent', category: 'setup', tag: 'linux', page: 3 }),
    );
  });

  it('drops values the API would refuse: unknown category, bad page', () => {
    expect(readFilters(new URLSearchParams('category=nope&page=0'))).toEqual(f());
    expect(readFilters(new URLSearchParams('page=2.5')).page).toBe(1);
    expect(readFilters(new URLSearchParams('page=abc')).page).toBe(1);
  });

  it('writes only what is set, and page only past the first', () => {
    expect(qs(f())).toBe('');
    expect(qs(f({ search: 'a b', tag: 'c', page: 1 }))).toBe('search=a+b&tag=c');
    expect(qs(f({ category: 'faq', page: 2 }))).toBe('category=faq&page=2');
  });
});

describe('kb list filter rules (product §4)', () => {
  it('choosing a category toggles it, clears the tag and goes to page 1', () => {
    const start = f({ search: 'x', tag: 'linux', page: 4 });
    expect(toggleCategory(start, 'setup')).toEqual(f({ search: 'x', category: 'setup', page: 1 }));
    expect(toggleCategory(f({ category: 'setup', tag: 't', page: 2 }), 'setup')).toEqual(f());
    expect(toggleCategory(f({ category: 'setup' }), 'faq').category).toBe('faq');
  });

  it('choosing a tag toggles it, keeps the category and goes to page 1', () => {
    expect(toggleTag(f({ category: 'usage', page: 3 }), 'cron')).toEqual(
      f({ category: 'usage', tag: 'cron' }),
    );
    expect(toggleTag(f({ tag: 'cron', page: 3 }), 'cron')).toEqual(f());
  });

  it('a new search goes to page 1; explicit paging keeps everything else', () => {
    expect(withSearch(f({ tag: 't', page: 5 }), '  restore  ')).toEqual(f({ search: 'restore', tag: 't' }));
    expect(toPage(f({ search: 's', category: 'faq', tag: 't' }), 3)).toEqual(
      f({ search: 's', category: 'faq', tag: 't', page: 3 }),
    );
  });

  it("'Clear all' keeps only the search text", () => {
    expect(clearAll(f({ search: 'key', category: 'security', tag: 'aes', page: 2 }))).toEqual(
      f({ search: 'key' }),
    );
  });

  it("removing one chip drops that filter only; 'Clear filters' drops everything", () => {
    expect(withoutFilter(f({ category: 'faq', tag: 't', page: 2 }), 'tag')).toEqual(f({ category: 'faq' }));
    expect(clearEverything()).toEqual(f());
  });

  it('counts the search text as a filter for the empty state', () => {
    expect(hasActiveFilters(f())).toBe(false);
    expect(hasActiveFilters(f({ search: 'x' }))).toBe(true);
    expect(hasActiveFilters(f({ tag: 'x' }))).toBe(true);
  });
});

describe('pageItems', () => {
  it('numbers every page when there are few', () => {
    expect(pageItems(1, 1)).toEqual([1]);
    expect(pageItems(2, 4)).toEqual([1, 2, 3, 4]);
  });

  it('keeps the ends and the neighbours of the current page', () => {
    expect(pageItems(1, 10)).toEqual([1, 2, 'gap', 10]);
    expect(pageItems(5, 10)).toEqual([1, 'gap', 4, 5, 6, 'gap', 10]);
    expect(pageItems(10, 10)).toEqual([1, 'gap', 9, 10]);
  });

  it('shows a single left-out page instead of a gap', () => {
    expect(pageItems(4, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});
