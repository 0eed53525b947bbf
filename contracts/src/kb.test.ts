import { z } from 'zod';
import { articleFields, articleSlugParam, categoryLabel, SLUG_PATTERN, slugFromTitle } from './kb.js';

describe('slugFromTitle (the editor’s Generate button, product §5)', () => {
  it.each([
    ['Hello World', 'hello-world'],
    ['  Restore a backup -- by hand!  ', 'restore-a-backup-by-hand'],
    ['C++ & Node.js: 2 tips', 'c-nodejs-2-tips'],
    ['snake_case stays', 'snake_case-stays'],
    ['Résumé', 'rsum'],
    ['!!!', ''],
  ])('%j → %j', (title, slug) => {
    expect(slugFromTitle(title)).toBe(slug);
  });

  it('always produces a slug the server accepts (or an empty one, which is "Slug is required")', () => {
    for (const title of ['-a-', 'a  -  b', `${'long '.repeat(80)}`, '__x__', 'ÄÖÜ äöü', '---']) {
      const slug = slugFromTitle(title);
      if (slug)
        expect({ title, ok: SLUG_PATTERN.test(slug) && slug.length <= 200 }).toEqual({ title, ok: true });
    }
  });
});

describe('article fields', () => {
  const article = z.object({
    title: articleFields.title,
    slug: articleFields.slug,
    content: articleFields.content,
  });
  const first = (input: unknown) => article.safeParse(input).error?.issues[0]?.message;

  it('refuse title, slug and content in the spec’s order and words', () => {
    expect(first({})).toBe('Title is required');
    expect(first({ title: ' ', slug: '', content: '' })).toBe('Title is required');
    expect(first({ title: 'T', slug: ' ', content: '' })).toBe('Slug is required');
    expect(first({ title: 'T', slug: 's', content: '\n' })).toBe('Content is required');
    expect(first({ title: { $gt: '' }, slug: 's', content: 'c' })).toBe('Title must be text');
  });

  it('keep markdown exactly as written, surrounding blank lines included', () => {
    expect(articleFields.content.parse('\n  # T  \n')).toBe('\n  # T  \n');
  });

  it('label categories in title case', () => {
    expect(categoryLabel('getting-started')).toBe('Getting Started');
    expect(categoryLabel('faq')).toBe('Faq');
  });

  it('refuse path slugs that could not have been saved', () => {
    for (const bad of ['Upper', 'a--b', '-a', 'a-', '../x', '$where', 'a'.repeat(201)])
      expect(articleSlugParam.safeParse(bad).success).toBe(false);
    expect(articleSlugParam.parse('install-agent-linux')).toBe('install-agent-linux');
  });
});
