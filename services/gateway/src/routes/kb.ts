import { z } from 'zod';
import { articleFields, articleSlugParam, KB_CATEGORIES, LIMITS, type KbCategory } from '@coffer/contracts';
import { AppError, articleCategory, fields } from '@coffer/common';
import type { kb } from '@coffer/proto';
import type { Clients } from '../clients.js';
import { passSession, type Identity } from '../http/identity.js';
import { messageBody, type RouteTable } from '../http/route.js';

const category = z.enum(KB_CATEGORIES).meta({ id: 'ArticleCategory' });

const articleAuthor = z
  .object({ _id: z.string(), name: z.string() })
  .meta({ id: 'ArticleAuthor', description: 'the admin who created the article' });

const articleView = z
  .object({
    _id: z.string(),
    title: z.string(),
    slug: z.string(),
    content: z.string().describe('markdown, as written'),
    category,
    tags: z.array(z.string()),
    isPublished: z.boolean(),
    order: z.number().describe('display order, lowest first'),
    createdAt: z.string(),
    updatedAt: z.string(),
    author: articleAuthor.optional(),
  })
  .meta({ id: 'Article' });

const articleSummaryView = articleView
  .omit({ content: true })
  .extend({ excerpt: z.string().describe('the start of the text, markdown stripped') })
  .meta({ id: 'ArticleSummary' });

const countView = z
  .object({ _id: z.string().describe('the category slug or the tag'), count: z.number() })
  .meta({ id: 'KbCount' });

const pagination = z
  .object({ total: z.number(), page: z.number(), pages: z.number().describe('at least 1') })
  .meta({ id: 'Pagination' });

// One path parameter name for /api/kb/{article}: OpenAPI forbids two templates of one path.
const slugParam = z.object({
  article: articleSlugParam.meta({ description: "the article's slug" }),
});
const idParam = z.object({
  article: fields.objectId('article').meta({ description: "the article's id" }),
});

const pageNumber = z.coerce
  .number({ error: 'page must be a whole number of 1 or more' })
  .int('page must be a whole number of 1 or more')
  .min(1, 'page must be a whole number of 1 or more')
  .max(100_000, 'page is too large')
  .default(1);

// Strict: an unknown parameter (`search[$ne]`, a typo) is refused rather than silently ignored.
const listQuery = z.strictObject(
  {
    search: z
      .string({ error: 'search must be text' })
      .max(LIMITS.kbSearch, `search must be at most ${LIMITS.kbSearch} characters`)
      .optional(),
    category: z
      .enum(['', ...KB_CATEGORIES], { error: `category must be one of ${KB_CATEGORIES.join(', ')}` })
      .optional(),
    tag: z
      .string({ error: 'tag must be text' })
      .max(LIMITS.articleTag, `tag must be at most ${LIMITS.articleTag} characters`)
      .optional(),
    page: pageNumber,
  },
  {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `Unknown query parameter: ${iss.keys.join(', ')} (expected search, category, tag, page)`
        : 'Invalid query',
  },
);

const createBody = z.object({
  title: articleFields.title,
  slug: articleFields.slug,
  content: articleFields.content,
  category: articleFields.category.optional().describe("default 'getting-started'"),
  tags: articleFields.tags.optional(),
  isPublished: articleFields.isPublished.optional().describe('default true'),
  order: articleFields.order.optional().describe('default 0'),
});

const updateBody = z
  .object({
    title: articleFields.title.optional(),
    slug: articleFields.slug.optional(),
    content: articleFields.content.optional(),
    category: articleFields.category.optional(),
    tags: articleFields.tags.optional(),
    isPublished: articleFields.isPublished.optional(),
    order: articleFields.order.optional(),
  })
  .refine(
    (b) => Object.values(b).some((v) => v !== undefined),
    'Nothing to update: send the article, or only isPublished',
  );

const toAuthor = (a: kb.Author | undefined) => (a ? { _id: a.id, name: a.name } : undefined);

/** The fields an article and its list summary share. */
const toListed = (a: kb.Article | kb.ArticleSummary) => ({
  _id: a.id,
  title: a.title,
  slug: a.slug,
  category: articleCategory.fromAnswer(a.category),
  tags: a.tags,
  isPublished: a.isPublished,
  order: a.order,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
  author: toAuthor(a.author),
});

export const toArticle = (a: kb.Article): z.input<typeof articleView> => ({
  ...toListed(a),
  content: a.content,
});

const toSummary = (a: kb.ArticleSummary): z.input<typeof articleSummaryView> => ({
  ...toListed(a),
  excerpt: a.excerpt,
});

const toCounts = (l: kb.CountList) => l.counts.map((c) => ({ _id: c.id, count: c.count }));
const categoryOf = (c: KbCategory | undefined) => (c === undefined ? undefined : articleCategory.toProto(c));

/** An article as written or changed, in the message kb takes (unset fields stay unset). */
const articleMessage = <B extends Partial<z.infer<typeof createBody>>>(body: B) => {
  const { category, tags, ...text } = body;
  return { ...text, category: categoryOf(category), tags: tags && { tags } };
};

/** /api/kb*: the knowledge base, read by anyone, written by admins (product §7). */
export function kbRoutes(t: RouteTable, deps: { clients: Clients; identity: Identity }) {
  const { clients, identity } = deps;

  t.add({
    method: 'get',
    path: '/api/kb',
    operationId: 'listArticles',
    summary:
      'Published articles, filtered and paged. search: every word must start a word of the title, text or tags',
    tag: 'kb',
    access: 'public',
    query: listQuery,
    response: z.object({ articles: z.array(articleSummaryView), pagination }),
    handler: async ({ query }) => {
      const res = await clients.kb.listArticles({
        search: query.search ?? '',
        category: categoryOf(query.category || undefined),
        tag: query.tag || undefined,
        page: query.page,
        pageSize: 0,
      });
      return {
        articles: res.articles.map(toSummary),
        pagination: res.pagination ?? { total: 0, page: query.page, pages: 1 },
      };
    },
  });

  t.add({
    method: 'get',
    path: '/api/kb/categories',
    operationId: 'listArticleCategories',
    summary: 'Published articles per category (categories without any are left out)',
    tag: 'kb',
    access: 'public',
    response: z.array(countView),
    handler: async () => toCounts(await clients.kb.listCategories({})),
  });

  t.add({
    method: 'get',
    path: '/api/kb/tags',
    operationId: 'listArticleTags',
    summary: 'The most used tags of published articles, most used first',
    tag: 'kb',
    access: 'public',
    response: z.array(countView),
    handler: async () => toCounts(await clients.kb.listTags({})),
  });

  t.add({
    method: 'get',
    path: '/api/kb/admin/all',
    operationId: 'listAllArticles',
    summary: 'Every article, drafts included (the admin list and editor)',
    tag: 'kb',
    access: 'admin',
    response: z.array(articleView),
    handler: async () => (await clients.kb.listAllArticles({})).articles.map(toArticle),
  });

  t.add({
    method: 'get',
    path: '/api/kb/:article',
    operationId: 'getArticle',
    summary: "A published article by its slug (an admin's token also finds drafts)",
    tag: 'kb',
    access: 'public',
    params: slugParam,
    response: articleView,
    errors: { NOT_FOUND: 'no published article has this slug' },
    handler: async ({ params, req }) => {
      const includeDrafts = await isAdmin(identity, req.headers.authorization);
      return toArticle(await clients.kb.getArticleBySlug({ slug: params.article, includeDrafts }));
    },
  });

  t.add({
    method: 'post',
    path: '/api/kb',
    operationId: 'createArticle',
    summary: 'Write an article; the caller is its author',
    tag: 'kb',
    access: 'admin',
    body: createBody,
    response: articleView,
    status: 201,
    errors: { CONFLICT: 'another article has this slug' },
    // kb asks auth who the session is: that admin is the author.
    handler: async ({ req, body }) =>
      toArticle(await clients.kb.createArticle(articleMessage(body), passSession(identity, req))),
  });

  t.add({
    method: 'put',
    path: '/api/kb/:article',
    operationId: 'updateArticle',
    summary: 'Change an article: the whole article, or only isPublished',
    tag: 'kb',
    access: 'admin',
    params: idParam,
    body: updateBody,
    response: articleView,
    errors: { NOT_FOUND: 'no article has this id', CONFLICT: 'another article has this slug' },
    handler: async ({ req, params, body }) =>
      toArticle(
        await clients.kb.updateArticle(
          { id: params.article, ...articleMessage(body) },
          passSession(identity, req),
        ),
      ),
  });

  t.add({
    method: 'delete',
    path: '/api/kb/:article',
    operationId: 'deleteArticle',
    summary: 'Delete an article for good',
    tag: 'kb',
    access: 'admin',
    params: idParam,
    response: messageBody,
    errors: { NOT_FOUND: 'no article has this id' },
    handler: async ({ req, params }) => {
      await clients.kb.deleteArticle({ id: params.article }, passSession(identity, req));
      return { message: 'Article deleted' };
    },
  });
}

/**
 * The article route is public, but the admin list's View opens drafts too: a valid admin token
 * shows them. Any other header (none, expired, a user's) is simply a visitor, never a refusal.
 */
async function isAdmin(identity: Identity, authorization: string | undefined): Promise<boolean> {
  if (!authorization) return false;
  try {
    const caller = await identity.fromToken(identity.bearer(authorization));
    return caller.role === 'admin';
  } catch (err) {
    if (err instanceof AppError) return false;
    throw err;
  }
}
