// The knowledge base list's state lives in the address (product §2: search, category, tag, page) and
// changes by the rules of product §4: choosing a category toggles it and clears the tag; choosing a
// tag toggles it; any change but explicit paging goes back to page 1; 'Clear all' keeps only the
// search text.
import { KB_CATEGORIES, LIMITS, type KbCategory } from '@coffer/contracts';

export interface KbFilters {
  search: string;
  category: KbCategory | '';
  tag: string;
  page: number;
}

const isCategory = (value: string): value is KbCategory =>
  (KB_CATEGORIES as readonly string[]).includes(value);

/** Reads the filters from the query string; values the API would refuse are dropped, not sent. */
export function readFilters(params: URLSearchParams): KbFilters {
  const category = params.get('category') ?? '';
  const page = Number(params.get('page') ?? '1');
  return {
    search: (params.get('search') ?? '').trim().slice(0, LIMITS.kbSearch),
    category: isCategory(category) ? category : '',
    tag: (params.get('tag') ?? '').trim().slice(0, LIMITS.articleTag),
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
  };
}

/** The query string for these filters: empty values and page 1 are left out. */
export function writeFilters(filters: KbFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.search) params.set('search', filters.search);
  if (filters.category) params.set('category', filters.category);
  if (filters.tag) params.set('tag', filters.tag);
  if (filters.page > 1) params.set('page', String(filters.page));
  return params;
}

export const hasActiveFilters = (f: KbFilters) => Boolean(f.search || f.category || f.tag);

export const withSearch = (f: KbFilters, search: string): KbFilters => ({
  ...f,
  search: search.trim(),
  page: 1,
});

export const toggleCategory = (f: KbFilters, category: KbCategory): KbFilters => ({
  ...f,
  category: f.category === category ? '' : category,
  tag: '',
  page: 1,
});

export const toggleTag = (f: KbFilters, tag: string): KbFilters => ({
  ...f,
  tag: f.tag === tag ? '' : tag,
  page: 1,
});

/** 'Clear all' in the active-filter bar. */
export const clearAll = (f: KbFilters): KbFilters => ({ search: f.search, category: '', tag: '', page: 1 });

/** 'Clear filters' in the empty state: with nothing found, the search text goes too. */
export const clearEverything = (): KbFilters => ({ search: '', category: '', tag: '', page: 1 });

/** Removing one chip of the active-filter bar. */
export const withoutFilter = (f: KbFilters, which: 'search' | 'category' | 'tag'): KbFilters => ({
  ...f,
  [which]: '',
  page: 1,
});

export const toPage = (f: KbFilters, page: number): KbFilters => ({ ...f, page });

/**
 * Numbered buttons for the pager: the first and last page, the current one with a neighbour on
 * each side, and 'gap' where pages are left out (a gap of one page shows the page instead).
 */
export function pageItems(current: number, pages: number): (number | 'gap')[] {
  const keep = new Set([1, pages, current - 1, current, current + 1].filter((p) => p >= 1 && p <= pages));
  const items: (number | 'gap')[] = [];
  let last = 0;
  for (const p of [...keep].sort((a, b) => a - b)) {
    if (p - last === 2) items.push(last + 1);
    else if (p - last > 2) items.push('gap');
    items.push(p);
    last = p;
  }
  return items;
}
