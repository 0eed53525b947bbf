// The knowledge base's vocabulary and article rules (product §3, §5, §9), shared by the kb
// service's gRPC handlers, the gateway's REST schemas and the web app's editor, so all three
// refuse the same input with the same words.
import { z } from 'zod';
import { LIMITS } from './limits.js';
import { safeText } from './text.js';

/** Article categories, in the order the knowledge base lists them. */
export const KB_CATEGORIES = [
  'getting-started',
  'setup',
  'usage',
  'troubleshooting',
  'faq',
  'security',
] as const;
export type KbCategory = (typeof KB_CATEGORIES)[number];

/** What a new article gets for the fields its author left out (product §3). */
export const ARTICLE_DEFAULTS = {
  category: 'getting-started',
  isPublished: true,
  order: 0,
} as const satisfies {
  category: KbCategory;
  isPublished: boolean;
  order: number;
};

/** Articles per page of GET /api/kb (the spec leaves it open). */
export const KB_PAGE_SIZE = 10;
/** Tags GET /api/kb/tags lists: the most used ones. */
export const KB_TAG_LIST_LIMIT = 30;

/**
 * Slugs are what the editor's generator (slugFromTitle) produces: lower-case word characters in
 * runs joined by single hyphens.
 */
export const SLUG_PATTERN = /^[a-z0-9_]+(?:-[a-z0-9_]+)*$/;
export const SLUG_RULE =
  'Slug may contain only lower-case letters, digits and underscores, joined by single hyphens';
/** /api/kb/categories and /api/kb/tags are routes, so no article can live at those slugs. */
export const RESERVED_SLUGS = ['categories', 'tags'] as const;

/**
 * The editor's Generate button (product §5): lower-case the title, drop everything but word
 * characters, whitespace and hyphens, turn whitespace runs into a hyphen, collapse repeated
 * hyphens, trim (hyphens at either end included, so the result passes SLUG_PATTERN).
 */
export function slugFromTitle(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/\s+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, LIMITS.articleSlug)
    .replace(/-$/, '');
}

/** "getting-started" → "Getting Started" (article cards, the article page). */
export const categoryLabel = (category: string) =>
  category
    .split('-')
    .map((w) => (w ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join(' ');

const CATEGORY_RULE = `Category must be one of ${KB_CATEGORIES.join(', ')}`;
const count = (n: number) => n.toLocaleString('en-US');

/** A required text field: 'X is required' when absent or blank, 'X must be text' for anything else. */
const requiredText = (label: string, max: number) =>
  z
    .string({
      error: (iss) =>
        iss.input === undefined || iss.input === null ? `${label} is required` : `${label} must be text`,
    })
    .trim()
    .min(1, `${label} is required`)
    .max(max, `${label} must be at most ${count(max)} characters`);

/**
 * One rule per article field. Title, slug and content are checked in that order (product §5), so
 * the first refusal names the same field the editor's own check would.
 */
export const articleFields = {
  title: safeText(requiredText('Title', LIMITS.articleTitle), 'Title'),
  slug: requiredText('Slug', LIMITS.articleSlug)
    .regex(SLUG_PATTERN, SLUG_RULE)
    .refine((s) => !(RESERVED_SLUGS as readonly string[]).includes(s), {
      error: (iss) => `The slug '${String(iss.input)}' is reserved; choose another`,
    }),
  // Markdown is stored as written: only its size is bounded (surrounding blank lines included).
  content: z
    .string({
      error: (iss) =>
        iss.input === undefined || iss.input === null ? 'Content is required' : 'Content must be text',
    })
    .max(LIMITS.articleContent, `Content must be at most ${count(LIMITS.articleContent)} characters`)
    .refine((s) => s.trim().length > 0, 'Content is required'),
  category: z.enum(KB_CATEGORIES, { error: CATEGORY_RULE }),
  tags: z
    .array(
      z
        .string({ error: 'Each tag must be text' })
        .trim()
        .min(1, 'Tags may not be blank')
        .max(LIMITS.articleTag, `Each tag must be at most ${LIMITS.articleTag} characters`),
      { error: 'Tags must be a list of words' },
    )
    .max(LIMITS.articleTags, `An article may have at most ${LIMITS.articleTags} tags`),
  isPublished: z.boolean({ error: 'isPublished must be true or false' }),
  order: z
    .number({ error: 'Order must be a whole number' })
    .int('Order must be a whole number')
    .min(-100_000, 'Order must be between -100,000 and 100,000')
    .max(100_000, 'Order must be between -100,000 and 100,000'),
};

/** The slug in /api/kb/{slug}: a visitor's mistyped link is a 400 that says why, not a lookup. */
export const articleSlugParam = z
  .string()
  .max(LIMITS.articleSlug, 'Invalid slug')
  .regex(SLUG_PATTERN, `Invalid slug: ${SLUG_RULE.charAt(0).toLowerCase()}${SLUG_RULE.slice(1)}`);

/** The search box: at most this many words count (each a prefix of a word in the article). */
export const KB_SEARCH_WORDS = 8;
