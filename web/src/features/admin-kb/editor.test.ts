import { slugFromTitle } from '@coffer/contracts';
import { addTag, articleBody, emptyForm, validationError } from './editor';

describe('article editor', () => {
  it('checks title, then slug, then content (product §5)', () => {
    expect(validationError({ title: ' ', slug: '', content: '' })).toBe('Title is required');
    expect(validationError({ title: 'T', slug: '  ', content: '' })).toBe('Slug is required');
    expect(validationError({ title: 'T', slug: 's', content: '\n\n' })).toBe('Content is required');
    expect(validationError({ title: 'T', slug: 's', content: 'x' })).toBeNull();
  });

  it('starts a new article with the spec defaults', () => {
    expect(articleBody({ ...emptyForm(), title: 'T', slug: 's', content: 'c' })).toEqual({
      title: 'T',
      slug: 's',
      content: 'c',
      category: 'getting-started',
      tags: [],
      isPublished: true,
      order: 0,
    });
  });

  it('adds a tag on Enter only when non-empty after trimming and new', () => {
    expect(addTag([], '  linux ')).toEqual(['linux']);
    expect(addTag(['linux'], 'linux')).toEqual(['linux']);
    expect(addTag(['linux'], '   ')).toEqual(['linux']);
    expect(addTag(['linux'], 'Linux')).toEqual(['linux', 'Linux']);
  });

  it('sends the order as a number, blank as the default', () => {
    const form = { ...emptyForm(), title: 'T', slug: 's', content: 'c' };
    expect(articleBody({ ...form, order: '7' }).order).toBe(7);
    expect(articleBody({ ...form, order: '' }).order).toBe(0);
    expect(Number.isNaN(articleBody({ ...form, order: '1.x' }).order)).toBe(true);
  });

  it('Generate makes the slug by the product §5 rule', () => {
    expect(slugFromTitle('  How to: Restore a DB -- by hand!  ')).toBe('how-to-restore-a-db-by-hand');
    expect(slugFromTitle('Übersicht & FAQ')).toBe('bersicht-faq');
  });
});
