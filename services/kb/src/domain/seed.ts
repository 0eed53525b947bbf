// The knowledge base a new installation starts with: markdown files under services/kb/seed/,
// each with a front-matter block of its fields. Written once, on the first start that finds no
// article it did not write itself, so an admin's deletions and edits are never undone.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { articleFields } from '@coffer/contracts';
import type { Logger } from '@coffer/common';
import type { ArticleStore } from '../store/types.js';
import { excerpt, searchTokens } from './search.js';

const frontMatter = z.object({
  title: articleFields.title,
  slug: articleFields.slug,
  category: articleFields.category,
  tags: articleFields.tags,
  order: articleFields.order,
  isPublished: articleFields.isPublished,
});
export type SeedArticle = z.infer<typeof frontMatter> & { content: string };

/** The author seeded articles show. */
export const SEED_AUTHOR = { id: 'seed', name: 'Coffer Team' };

/**
 * `---` / `key: value` lines / `---`, then the markdown. Tags are comma-separated; order a number;
 * isPublished defaults to true.
 */
export function parseSeedFile(text: string, file: string): SeedArticle {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text);
  if (!m) throw new Error(`${file}: no front matter`);
  const fields: Record<string, unknown> = { isPublished: true, tags: [], order: 0 };
  for (const line of m[1]!.split(/\r?\n/)) {
    const kv = /^(\w+):\s*(.*)$/.exec(line);
    if (!kv) continue;
    const [, key, raw] = kv as unknown as [string, string, string];
    const value = raw.trim();
    if (key === 'tags') fields.tags = value ? value.split(',').map((t) => t.trim()) : [];
    else if (key === 'order') fields.order = Number(value);
    else if (key === 'isPublished') fields.isPublished = value === 'true';
    else fields[key] = value;
  }
  const parsed = frontMatter.safeParse(fields);
  if (!parsed.success) throw new Error(`${file}: ${parsed.error.issues[0]!.message}`);
  const content = m[2]!.replace(/^\s+/, '');
  const checked = articleFields.content.safeParse(content);
  if (!checked.success) throw new Error(`${file}: ${checked.error.issues[0]!.message}`);
  return { ...parsed.data, content };
}

/** Every `*.md` of the folder, by file name. */
export function loadSeedArticles(dir: string): SeedArticle[] {
  if (!fs.existsSync(dir))
    throw new Error(`the seed articles folder ${dir} does not exist: set KB_SEED_DIR, or KB_SEED=false`);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .sort()
    .map((f) => parseSeedFile(fs.readFileSync(path.join(dir, f), 'utf8'), f));
}

/**
 * Where the seed folder is: beside `dist` in the source tree (so an edited article is what the
 * next start reads), else the copy inside `dist` that images and production trees carry.
 */
export function defaultSeedDir(here: string): string {
  const candidates = [path.join(here, '..', 'seed'), path.join(here, 'seed')];
  return candidates.find((d) => fs.existsSync(d)) ?? candidates[0]!;
}

/**
 * Writes the seed articles unless this was done before or the knowledge base has articles of its
 * own. Replicas starting together both get here: each article is inserted by slug only if absent,
 * so they write it once; a start cut short half-way resumes, since its articles are all seeds.
 */
export async function seedArticles(deps: {
  store: ArticleStore;
  articles: SeedArticle[];
  log: Logger;
  now?: () => Date;
}): Promise<'seeded' | 'skipped'> {
  const { store, articles, log } = deps;
  if (await store.seeded()) return 'skipped';
  const slugs = articles.map((a) => a.slug);
  if ((await store.countOutside(slugs)) > 0) {
    await store.markSeeded((deps.now ?? (() => new Date()))());
    log.info('knowledge base already has articles; not seeding');
    return 'skipped';
  }
  const at = (deps.now ?? (() => new Date()))();
  for (const a of articles) {
    await store.ensure({
      ...a,
      author: SEED_AUTHOR,
      excerpt: excerpt(a.content),
      searchTokens: searchTokens(a),
      createdAt: at,
      updatedAt: at,
    });
  }
  await store.markSeeded(at);
  log.info({ articles: articles.length }, 'knowledge base seeded');
  return 'seeded';
}
