// The records kb's domain works with and the data-access methods it calls. Mongoose lives only in
// store/index.ts; unit tests hand the domain the in-memory store of store/fake.ts instead.
import type { KbCategory } from '@coffer/contracts';

/** Ids are ObjectIds written as 24 hex characters; anything else names no record. */
export const isId = (id: string) => /^[0-9a-f]{24}$/i.test(id);

export interface Author {
  id: string;
  name: string;
}

export interface ArticleRecord {
  id: string;
  title: string;
  /** Unique over all articles, drafts included. */
  slug: string;
  content: string;
  category: KbCategory;
  tags: string[];
  isPublished: boolean;
  order: number;
  author: Author | null;
  excerpt: string;
  searchTokens: string[];
  createdAt: Date;
  updatedAt: Date;
}
export type NewArticle = Omit<ArticleRecord, 'id'>;
/** What lists carry: no markdown, no search field. */
export type ArticleSummaryRecord = Omit<ArticleRecord, 'content' | 'searchTokens'>;
export type ArticlePatch = Partial<
  Pick<
    ArticleRecord,
    'title' | 'slug' | 'content' | 'category' | 'tags' | 'isPublished' | 'order' | 'excerpt' | 'searchTokens'
  >
> & { updatedAt: Date };

export interface ArticleFilter {
  /** Drafts are left out. */
  publishedOnly: boolean;
  category?: KbCategory;
  /** Exact tag, as written. */
  tag?: string;
  /** Normalised search words: each must start one of the article's searchTokens. */
  words?: string[];
}

export interface Count {
  id: string;
  count: number;
}

export interface ArticleStore {
  /** Rejects with a duplicate-key error (isDuplicateKeyError) when the slug is taken. */
  insert(article: NewArticle): Promise<ArticleRecord>;
  /** Null for an unknown or malformed id. */
  get(id: string): Promise<ArticleRecord | null>;
  bySlug(slug: string): Promise<ArticleRecord | null>;
  /** One page of the matching articles: `order` ascending, then newest update, then id. */
  page(
    filter: ArticleFilter,
    skip: number,
    limit: number,
  ): Promise<{ articles: ArticleSummaryRecord[]; total: number }>;
  /** Every article, newest update first. */
  all(): Promise<ArticleRecord[]>;
  /**
   * One write; the article before and after it, or null when there is none. Duplicate-key error
   * when the new slug is another article's.
   */
  update(id: string, patch: ArticlePatch): Promise<{ before: ArticleRecord; after: ArticleRecord } | null>;
  /** The removed article, or null when there was none. */
  remove(id: string): Promise<ArticleRecord | null>;
  /** Published articles per category; categories without any are absent. */
  categoryCounts(): Promise<Count[]>;
  /** Published articles per tag, most used first (ties by tag), at most `limit`. */
  tagCounts(limit: number): Promise<Count[]>;

  /** Articles whose slug is none of `slugs` (the seed looks for articles it did not write). */
  countOutside(slugs: string[]): Promise<number>;
  /** Inserts the article unless its slug exists (replicas seeding at once write it once). */
  ensure(article: NewArticle): Promise<void>;
  seeded(): Promise<boolean>;
  markSeeded(at: Date): Promise<void>;
}
