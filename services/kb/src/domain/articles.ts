import { ARTICLE_DEFAULTS, KB_PAGE_SIZE, KB_TAG_LIST_LIMIT, type KbCategory } from '@coffer/contracts';
import { conflict, isDuplicateKeyError, notFound } from '@coffer/common';
import type { KbEvents } from '../events.js';
import type { ArticleRecord, ArticleStore, Author, NewArticle } from '../store/types.js';
import { excerpt, searchTokens, searchWords } from './search.js';

/** A new article as the handler validated it; absent fields take ARTICLE_DEFAULTS. */
export interface ArticleInput {
  title: string;
  slug: string;
  content: string;
  category?: KbCategory;
  tags?: string[];
  isPublished?: boolean;
  order?: number;
}
/** The fields an update sets; the others stay as they are. */
export type ArticleChanges = Partial<Required<ArticleInput>>;

export interface ListQuery {
  search?: string;
  category?: KbCategory;
  tag?: string;
  page: number;
  pageSize?: number;
}

export const MAX_PAGE_SIZE = 50;
export const NOT_FOUND = 'Article not found';
const slugTaken = (slug: string) =>
  conflict(`An article with the slug '${slug}' already exists. Choose another slug.`);

/** Tags as written, each once, in the order given. */
const distinct = (tags: readonly string[]) => [...new Set(tags)];

/** The articles of the knowledge base: what visitors read and what admins write. */
export function articles(deps: { store: ArticleStore; events: KbEvents; now?: () => Date }) {
  const { store, events } = deps;
  const now = deps.now ?? (() => new Date());

  const publish = async (
    subject: 'created' | 'updated' | 'deleted' | 'published' | 'unpublished',
    actor: Author,
    a: ArticleRecord,
  ) => {
    await events.publish(`kb.article.${subject}`, {
      userId: actor.id,
      articleId: a.id,
      title: a.title,
      slug: a.slug,
    });
  };

  /** Derived fields follow the text they come from. */
  const derived = (a: { title: string; content: string; tags: string[] }) => ({
    excerpt: excerpt(a.content),
    searchTokens: searchTokens(a),
  });

  const rethrowClash = (slug: string) => (err: unknown) => {
    throw isDuplicateKeyError(err) ? slugTaken(slug) : err;
  };

  return {
    /** Published articles only; a search without a single word finds nothing. */
    async list(q: ListQuery) {
      const pageSize = Math.min(q.pageSize || KB_PAGE_SIZE, MAX_PAGE_SIZE);
      const page = Math.max(1, q.page);
      const search = q.search?.trim() ?? '';
      const words = searchWords(search);
      if (search && words.length === 0) return { articles: [], total: 0, page, pages: 1 };
      const { articles: found, total } = await store.page(
        { publishedOnly: true, category: q.category, tag: q.tag, words },
        (page - 1) * pageSize,
        pageSize,
      );
      return { articles: found, total, page, pages: Math.max(1, Math.ceil(total / pageSize)) };
    },

    categories: () => store.categoryCounts(),
    tags: () => store.tagCounts(KB_TAG_LIST_LIMIT),

    /** A draft is as absent as a missing article, unless the caller may see drafts. */
    async bySlug(slug: string, includeDrafts: boolean) {
      const a = await store.bySlug(slug);
      if (!a || (!a.isPublished && !includeDrafts)) throw notFound(NOT_FOUND);
      return a;
    },

    all: () => store.all(),

    async create(actor: Author, input: ArticleInput) {
      const at = now();
      const tags = distinct(input.tags ?? []);
      const article: NewArticle = {
        title: input.title,
        slug: input.slug,
        content: input.content,
        category: input.category ?? ARTICLE_DEFAULTS.category,
        tags,
        isPublished: input.isPublished ?? ARTICLE_DEFAULTS.isPublished,
        order: input.order ?? ARTICLE_DEFAULTS.order,
        author: { id: actor.id, name: actor.name },
        ...derived({ title: input.title, content: input.content, tags }),
        createdAt: at,
        updatedAt: at,
      };
      const created = await store.insert(article).catch(rethrowClash(input.slug));
      await publish('created', actor, created);
      return created;
    },

    /**
     * Saves the given fields. A save from the editor (any field besides isPublished) is
     * ARTICLE_UPDATED; a change of isPublished is also ARTICLE_PUBLISHED or _UNPUBLISHED.
     */
    async update(actor: Author, id: string, given: ArticleChanges) {
      // An absent field and one sent as undefined both mean "leave it as it is".
      const changes = Object.fromEntries(
        Object.entries(given).filter(([, v]) => v !== undefined),
      ) as ArticleChanges;
      const current = await store.get(id);
      if (!current) throw notFound(NOT_FOUND);
      const next = { ...current, ...changes, tags: distinct(changes.tags ?? current.tags) };
      const textChanged =
        changes.title !== undefined || changes.content !== undefined || changes.tags !== undefined;
      const res = await store
        .update(id, {
          ...changes,
          ...(changes.tags !== undefined && { tags: next.tags }),
          ...(textChanged && derived(next)),
          updatedAt: now(),
        })
        .catch(rethrowClash(next.slug));
      if (!res) throw notFound(NOT_FOUND);
      const { before, after } = res;
      const { isPublished: _p, ...edits } = changes;
      if (Object.values(edits).some((v) => v !== undefined)) await publish('updated', actor, after);
      if (before.isPublished !== after.isPublished)
        await publish(after.isPublished ? 'published' : 'unpublished', actor, after);
      return after;
    },

    async remove(actor: Author, id: string) {
      const removed = await store.remove(id);
      if (!removed) throw notFound(NOT_FOUND);
      await publish('deleted', actor, removed);
    },
  };
}
export type Articles = ReturnType<typeof articles>;
