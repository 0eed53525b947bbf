import { z } from 'zod';
import { articleFields, articleSlugParam, LIMITS } from '@coffer/contracts';
import {
  articleCategory,
  fields,
  parseInput,
  unaryHandlers,
  userTokenOf,
  type AdminCheck,
  type Logger,
} from '@coffer/common';
import { kb } from '@coffer/proto';
import { MAX_PAGE_SIZE, type Articles } from './domain/articles.js';
import type { ArticleRecord, ArticleSummaryRecord, Author, Count } from './store/types.js';

const articleId = fields.objectId('article');
const category = articleCategory.schema.optional();
const tags = z
  .object({ tags: articleFields.tags }, { error: 'Tags must be a list of words' })
  .optional()
  .transform((t) => t?.tags);

// proto3 sends 0 for an unset number and '' for an unset string: those mean "use the default".
const listInput = z.object({
  search: z.string().max(LIMITS.kbSearch, `search must be at most ${LIMITS.kbSearch} characters`),
  category,
  tag: z
    .string()
    .max(LIMITS.articleTag, `tag must be at most ${LIMITS.articleTag} characters`)
    .optional()
    .transform((t) => t || undefined),
  page: z
    .number()
    .int('Page must be a positive whole number')
    .min(0, 'Page must be a positive whole number')
    .transform((n) => n || 1),
  pageSize: z
    .number()
    .int(`Page size must be a whole number from 1 to ${MAX_PAGE_SIZE}`)
    .min(0, `Page size must be a whole number from 1 to ${MAX_PAGE_SIZE}`)
    .max(MAX_PAGE_SIZE, `Page size must be a whole number from 1 to ${MAX_PAGE_SIZE}`),
});

const createInput = z.object({
  title: articleFields.title,
  slug: articleFields.slug,
  content: articleFields.content,
  category,
  tags,
  isPublished: articleFields.isPublished.optional(),
  order: articleFields.order.optional(),
});

const updateInput = z.object({
  id: articleId,
  title: articleFields.title.optional(),
  slug: articleFields.slug.optional(),
  content: articleFields.content.optional(),
  category,
  tags,
  isPublished: articleFields.isPublished.optional(),
  order: articleFields.order.optional(),
});

const iso = (d: Date) => d.toISOString();
const toAuthor = (a: Author | null) => (a ? { id: a.id, name: a.name } : undefined);

export function toSummaryMessage(a: ArticleSummaryRecord): kb.ArticleSummary {
  return {
    id: a.id,
    title: a.title,
    slug: a.slug,
    excerpt: a.excerpt,
    category: articleCategory.toProto(a.category),
    tags: a.tags,
    isPublished: a.isPublished,
    order: a.order,
    createdAt: iso(a.createdAt),
    updatedAt: iso(a.updatedAt),
    author: toAuthor(a.author),
  };
}

export function toArticleMessage(a: ArticleRecord): kb.Article {
  const { excerpt: _e, ...summary } = toSummaryMessage(a);
  return { ...summary, content: a.content };
}

const toCounts = (counts: Count[]): kb.CountList => ({ counts });

/**
 * gRPC edge of kb: validate, call the domain, shape the answer. The writes act for the admin whose
 * session token comes with the call, as auth names them (`adminCheck`): the article's author.
 */
export function kbHandlers(deps: { log: Logger; articles: Articles; adminCheck: AdminCheck }) {
  const { articles } = deps;
  const author = (call: Parameters<typeof userTokenOf>[0]) => deps.adminCheck(userTokenOf(call));
  return unaryHandlers<kb.KbServiceServer>(deps.log, {
    async listArticles(req) {
      const page = await articles.list(parseInput(listInput, req));
      return {
        articles: page.articles.map(toSummaryMessage),
        pagination: { total: page.total, page: page.page, pages: page.pages },
      };
    },
    async listCategories() {
      return toCounts(await articles.categories());
    },
    async listTags() {
      return toCounts(await articles.tags());
    },
    async getArticleBySlug(req) {
      const input = parseInput(z.object({ slug: articleSlugParam, includeDrafts: z.boolean() }), req);
      return toArticleMessage(await articles.bySlug(input.slug, input.includeDrafts));
    },
    async listAllArticles() {
      return { articles: (await articles.all()).map(toArticleMessage) };
    },
    async createArticle(req, call) {
      const who = await author(call);
      return toArticleMessage(await articles.create(who, parseInput(createInput, req)));
    },
    async updateArticle(req, call) {
      const who = await author(call);
      const { id, ...changes } = parseInput(updateInput, req);
      return toArticleMessage(await articles.update(who, id, changes));
    },
    async deleteArticle(req, call) {
      const who = await author(call);
      const input = parseInput(z.object({ id: articleId }), req);
      await articles.remove(who, input.id);
      return {};
    },
  });
}
