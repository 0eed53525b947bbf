import { KB_CATEGORIES } from '@coffer/contracts';
import type { ArticleFilter, ArticleRecord, ArticleStore, ArticleSummaryRecord, Count } from './types.js';
import { isId } from './types.js';

/** The error a unique index raises; isDuplicateKeyError recognises it like the database's. */
const duplicate = (slug: string) =>
  Object.assign(new Error(`E11000 duplicate key error: slug ${slug}`), { code: 11000 });

const matches = (a: ArticleRecord, f: ArticleFilter) =>
  (!f.publishedOnly || a.isPublished) &&
  (!f.category || a.category === f.category) &&
  (f.tag === undefined || a.tags.includes(f.tag)) &&
  (f.words ?? []).every((w) => a.searchTokens.some((t) => t.startsWith(w)));

const summary = ({ content: _c, searchTokens: _s, ...rest }: ArticleRecord): ArticleSummaryRecord => ({
  ...rest,
  tags: [...rest.tags],
});
const copy = (a: ArticleRecord): ArticleRecord => ({
  ...a,
  tags: [...a.tags],
  searchTokens: [...a.searchTokens],
});

/** In-memory ArticleStore for unit tests, with the same unique slug, filters and ordering. */
export function fakeArticleStore(): ArticleStore & { articles: ArticleRecord[] } {
  const articles: ArticleRecord[] = [];
  let seq = 0;
  let seededAt: Date | null = null;
  const find = (id: string) => (isId(id) ? articles.find((a) => a.id === id) : undefined);

  const countBy = (keys: string[]) => {
    const counts = new Map<string, number>();
    for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
    return counts;
  };

  return {
    articles,
    async insert(article) {
      if (articles.some((a) => a.slug === article.slug)) throw duplicate(article.slug);
      const stored = { ...copy({ ...article, id: '' }), id: (++seq).toString(16).padStart(24, '0') };
      articles.push(stored);
      return copy(stored);
    },
    async get(id) {
      const a = find(id);
      return a ? copy(a) : null;
    },
    async bySlug(slug) {
      const a = articles.find((x) => x.slug === slug);
      return a ? copy(a) : null;
    },
    async page(filter, skip, limit) {
      const found = articles
        .filter((a) => matches(a, filter))
        .sort(
          (a, b) =>
            a.order - b.order || b.updatedAt.getTime() - a.updatedAt.getTime() || a.id.localeCompare(b.id),
        );
      return { articles: found.slice(skip, skip + limit).map(summary), total: found.length };
    },
    async all() {
      return [...articles]
        .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || a.id.localeCompare(b.id))
        .map(copy);
    },
    async update(id, patch) {
      const a = find(id);
      if (!a) return null;
      if (patch.slug !== undefined && articles.some((x) => x !== a && x.slug === patch.slug))
        throw duplicate(patch.slug);
      const before = copy(a);
      Object.assign(a, patch);
      return { before, after: copy(a) };
    },
    async remove(id) {
      const a = find(id);
      if (!a) return null;
      articles.splice(articles.indexOf(a), 1);
      return copy(a);
    },
    async categoryCounts() {
      const counts = countBy(articles.filter((a) => a.isPublished).map((a) => a.category));
      return KB_CATEGORIES.filter((c) => counts.get(c)).map((c) => ({ id: c, count: counts.get(c)! }));
    },
    async tagCounts(limit) {
      const counts = countBy(articles.filter((a) => a.isPublished).flatMap((a) => a.tags));
      return [...counts]
        .map(([id, count]): Count => ({ id, count }))
        .sort((a, b) => b.count - a.count || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, limit);
    },
    async countOutside(slugs) {
      return articles.filter((a) => !slugs.includes(a.slug)).length;
    },
    async ensure(article) {
      if (!articles.some((a) => a.slug === article.slug)) await this.insert(article);
    },
    async seeded() {
      return seededAt !== null;
    },
    async markSeeded(at) {
      seededAt ??= at;
    },
  };
}
