// The admin article list's search, filters and sorting (product §2, §9): all done in the browser over
// GET /api/kb/admin/all, which returns every article.
import type { KbCategory } from '@coffer/contracts';
import type { Article } from '../../api/generated';

export type SortKey = 'title' | 'slug' | 'category' | 'order' | 'updatedAt';
export type SortDirection = 'asc' | 'desc';
export interface Sort {
  key: SortKey;
  direction: SortDirection;
}
export type StatusFilter = 'all' | 'published' | 'draft';

export interface ListFilters {
  search: string;
  category: KbCategory | '';
  status: StatusFilter;
}

/** Product §9: newest update first until a column is chosen. */
export const DEFAULT_SORT: Sort = { key: 'updatedAt', direction: 'desc' };

/** Clicking the sorted column turns it round; clicking another sorts by it ascending (product §9). */
export function nextSort(current: Sort, key: SortKey): Sort {
  if (current.key === key) return { key, direction: current.direction === 'asc' ? 'desc' : 'asc' };
  return { key, direction: 'asc' };
}

type Listed = Pick<Article, 'title' | 'slug' | 'category' | 'tags' | 'isPublished' | 'order' | 'updatedAt'>;

/** Text search over title, slug and tags, case-insensitive; every word must appear somewhere. */
export function matchesSearch(article: Listed, search: string): boolean {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = [article.title, article.slug, ...article.tags].join('\n').toLowerCase();
  return words.every((w) => haystack.includes(w));
}

function compare(a: Listed, b: Listed, key: SortKey): number {
  switch (key) {
    case 'order':
      return a.order - b.order;
    case 'updatedAt':
      return Date.parse(a.updatedAt) - Date.parse(b.updatedAt);
    default:
      return a[key].localeCompare(b[key], 'en', { sensitivity: 'base', numeric: true });
  }
}

export function visibleArticles<T extends Listed>(
  articles: readonly T[],
  filters: ListFilters,
  sort: Sort,
): T[] {
  const sign = sort.direction === 'asc' ? 1 : -1;
  return (
    articles
      .filter(
        (a) =>
          matchesSearch(a, filters.search) &&
          (!filters.category || a.category === filters.category) &&
          (filters.status === 'all' || a.isPublished === (filters.status === 'published')),
      )
      .map((a, i) => ({ a, i }))
      // Ties keep the server's order, so equal rows do not jump about on every change.
      .sort((x, y) => sign * compare(x.a, y.a, sort.key) || x.i - y.i)
      .map(({ a }) => a)
  );
}
