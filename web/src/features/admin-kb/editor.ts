// The article editor's form rules (product §5): the save check in its fixed order, tags added on
// Enter, and the article ↔ form mapping.
import { ARTICLE_DEFAULTS, type KbCategory } from '@coffer/contracts';
import type { Article, CreateArticleApiArg } from '../../api/generated';

export interface ArticleForm {
  title: string;
  slug: string;
  category: KbCategory;
  /** as typed in the number field */
  order: string;
  isPublished: boolean;
  tags: string[];
  content: string;
}

export const emptyForm = (): ArticleForm => ({
  title: '',
  slug: '',
  category: ARTICLE_DEFAULTS.category,
  order: String(ARTICLE_DEFAULTS.order),
  isPublished: ARTICLE_DEFAULTS.isPublished,
  tags: [],
  content: '',
});

export const formFromArticle = (a: Article): ArticleForm => ({
  title: a.title,
  slug: a.slug,
  category: a.category,
  order: String(a.order),
  isPublished: a.isPublished,
  tags: [...a.tags],
  content: a.content,
});

/** The first thing missing, checked title → slug → content (product §5), or null when the form may be saved. */
export function validationError(form: Pick<ArticleForm, 'title' | 'slug' | 'content'>): string | null {
  if (!form.title.trim()) return 'Title is required';
  if (!form.slug.trim()) return 'Slug is required';
  if (!form.content.trim()) return 'Content is required';
  return null;
}

/** Tags after Enter in the tag field: added when non-empty after trimming and not yet present. */
export function addTag(tags: readonly string[], typed: string): string[] {
  const tag = typed.trim();
  if (!tag || tags.includes(tag)) return [...tags];
  return [...tags, tag];
}

/**
 * The body for POST /api/kb and PUT /api/kb/{id}: the whole article. A blank order is the default
 * 0; anything else that is not a whole number goes as typed, so the server names the problem.
 */
export function articleBody(form: ArticleForm): CreateArticleApiArg {
  const order = form.order.trim() === '' ? ARTICLE_DEFAULTS.order : Number(form.order);
  return {
    title: form.title.trim(),
    slug: form.slug.trim(),
    content: form.content,
    category: form.category,
    tags: form.tags,
    isPublished: form.isPublished,
    order,
  };
}
