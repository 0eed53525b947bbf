import type { FilterQuery, Types } from 'mongoose';
import { KB_CATEGORIES, type KbCategory } from '@coffer/contracts';
import type { KbModels } from '../model.js';
import {
  isId,
  type ArticleFilter,
  type ArticleRecord,
  type ArticleStore,
  type ArticleSummaryRecord,
  type NewArticle,
} from './types.js';

/** A lean document: mongoose's inferred types add nothing at this boundary. */
type Lean = { _id: Types.ObjectId } & Record<string, unknown>;
type ArticleDoc = Lean & Omit<ArticleRecord, 'id'>;

const SEED_MARKER = 'seed';
const SORT = { order: 1, updatedAt: -1, _id: 1 } as const;

function toSummary(d: Lean): ArticleSummaryRecord {
  const a = d as ArticleDoc;
  return {
    id: d._id.toHexString(),
    title: a.title,
    slug: a.slug,
    category: a.category,
    tags: a.tags ?? [],
    isPublished: a.isPublished,
    order: a.order ?? 0,
    author: a.author ? { id: a.author.id, name: a.author.name ?? '' } : null,
    excerpt: a.excerpt ?? '',
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

function toArticle(d: Lean): ArticleRecord {
  const a = d as ArticleDoc;
  return { ...toSummary(d), content: a.content, searchTokens: a.searchTokens ?? [] };
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The filter as a query; every value is a plain string or boolean the domain checked. */
function query(f: ArticleFilter): FilterQuery<ArticleDoc> {
  const q: FilterQuery<ArticleDoc> = {};
  if (f.publishedOnly) q.isPublished = true;
  if (f.category) q.category = f.category;
  if (f.tag !== undefined) q.tags = f.tag;
  // Anchored regexes over the token array: an element must start with each word.
  if (f.words?.length) q.$and = f.words.map((w) => ({ searchTokens: { $regex: `^${escapeRegex(w)}` } }));
  return q;
}

/** The mongoose-backed store; the only code of kb that touches the database. */
export function mongoArticleStore({ Article, KbMeta }: KbModels): ArticleStore {
  return {
    async insert(article: NewArticle) {
      const created = await Article.create(article);
      return toArticle(created.toObject() as unknown as Lean);
    },
    async get(id) {
      if (!isId(id)) return null;
      const d = await Article.findById(id).lean<Lean>();
      return d ? toArticle(d) : null;
    },
    async bySlug(slug) {
      const d = await Article.findOne({ slug: String(slug) }).lean<Lean>();
      return d ? toArticle(d) : null;
    },
    async page(filter, skip, limit) {
      const q = query(filter);
      const [docs, total] = await Promise.all([
        Article.find(q, { content: 0, searchTokens: 0 }).sort(SORT).skip(skip).limit(limit).lean<Lean[]>(),
        Article.countDocuments(q),
      ]);
      return { articles: docs.map(toSummary), total };
    },
    async all() {
      return (await Article.find().sort({ updatedAt: -1, _id: 1 }).lean<Lean[]>()).map(toArticle);
    },
    async update(id, patch) {
      if (!isId(id)) return null;
      const before = await Article.findOneAndUpdate(
        { _id: id },
        { $set: patch },
        { new: false },
      ).lean<Lean>();
      if (!before) return null;
      const b = toArticle(before);
      return { before: b, after: { ...b, ...patch } };
    },
    async remove(id) {
      if (!isId(id)) return null;
      const d = await Article.findOneAndDelete({ _id: id }).lean<Lean>();
      return d ? toArticle(d) : null;
    },
    async categoryCounts() {
      const rows = await Article.aggregate<{ _id: KbCategory; count: number }>([
        { $match: { isPublished: true } },
        { $group: { _id: '$category', count: { $sum: 1 } } },
      ]);
      const byCategory = new Map(rows.map((r) => [r._id, r.count]));
      return KB_CATEGORIES.filter((c) => byCategory.get(c)).map((c) => ({
        id: c,
        count: byCategory.get(c)!,
      }));
    },
    async tagCounts(limit) {
      const rows = await Article.aggregate<{ _id: string; count: number }>([
        { $match: { isPublished: true } },
        { $unwind: '$tags' },
        { $group: { _id: '$tags', count: { $sum: 1 } } },
        { $sort: { count: -1, _id: 1 } },
        { $limit: limit },
      ]);
      return rows.map((r) => ({ id: r._id, count: r.count }));
    },
    async countOutside(slugs) {
      return Article.countDocuments({ slug: { $nin: slugs } });
    },
    async ensure(article) {
      await Article.updateOne({ slug: article.slug }, { $setOnInsert: article }, { upsert: true });
    },
    async seeded() {
      return (await KbMeta.countDocuments({ _id: SEED_MARKER })) > 0;
    },
    async markSeeded(at) {
      await KbMeta.updateOne({ _id: SEED_MARKER }, { $setOnInsert: { at } }, { upsert: true });
    },
  };
}
