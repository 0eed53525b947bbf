import path from 'node:path';
import { KB_CATEGORIES } from '@coffer/contracts';
import { createLogger } from '@coffer/common';
import { fakeArticleStore } from '../store/fake';
import { searchTokens } from './search';
import { loadSeedArticles, parseSeedFile, seedArticles, SEED_AUTHOR } from './seed';

const SEED_DIR = path.join(__dirname, '../../seed');
const log = createLogger('kb-test', 'silent');
const seeds = loadSeedArticles(SEED_DIR);

describe('the seeded knowledge base', () => {
  it('has an article in every category, unique slugs, and every /kb link points at one of them', () => {
    expect(new Set(seeds.map((s) => s.category))).toEqual(new Set(KB_CATEGORIES));
    const slugs = seeds.map((s) => s.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const s of seeds) {
      for (const [, target] of s.content.matchAll(/\]\(\/kb\/([^)#?]+)\)/g)) {
        expect({ from: s.slug, to: target, exists: slugs.includes(target!) }).toMatchObject({ exists: true });
      }
    }
  });

  it('covers the guides the product needs: install on Linux and Windows, restore by hand, keys, errors', () => {
    const bySlug = new Map(seeds.map((s) => [s.slug, s]));
    expect(bySlug.get('install-agent-linux')!.content).toContain('install.sh');
    expect(bySlug.get('install-agent-windows')!.content).toContain('install.ps1');
    expect(bySlug.get('restore-downloaded-backup-by-hand')!.content).toContain('coffer-agent decrypt');
    expect(bySlug.get('security-model-and-keys')!.content).toContain('coffer-agent key export');
    expect(bySlug.get('troubleshooting-agent-errors')!.content).toContain('mongodump was not found on PATH');
  });

  it('refuses a seed file without front matter or with a bad field, naming the file', () => {
    expect(() => parseSeedFile('# just markdown', 'x.md')).toThrow('x.md: no front matter');
    expect(() => parseSeedFile('---\ntitle: T\nslug: Bad Slug\ncategory: faq\n---\ntext', 'y.md')).toThrow(
      /^y\.md: Slug may contain only/,
    );
    expect(
      parseSeedFile('---\ntitle: T\nslug: t\ncategory: faq\ntags: a, b\norder: 2\n---\n\n# Body\n', 'z.md'),
    ).toEqual({
      title: 'T',
      slug: 't',
      category: 'faq',
      tags: ['a', 'b'],
      order: 2,
      isPublished: true,
      content: '# Body\n',
    });
  });
});

describe('seeding', () => {
  it('writes every article once, searchable, then never again (even after deletions)', async () => {
    const store = fakeArticleStore();
    expect(await seedArticles({ store, articles: seeds, log })).toBe('seeded');
    expect(store.articles).toHaveLength(seeds.length);
    expect(store.articles[0]).toMatchObject({ author: SEED_AUTHOR, isPublished: true });
    expect(store.articles[0]!.searchTokens).toEqual(searchTokens(seeds[0]!));
    await store.remove(store.articles[0]!.id);
    expect(await seedArticles({ store, articles: seeds, log })).toBe('skipped');
    expect(store.articles).toHaveLength(seeds.length - 1);
  });

  it('leaves a knowledge base with articles of its own alone', async () => {
    const store = fakeArticleStore();
    await store.insert({
      ...seeds[0]!,
      slug: 'mine',
      author: null,
      excerpt: '',
      searchTokens: [],
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    expect(await seedArticles({ store, articles: seeds, log })).toBe('skipped');
    expect(store.articles.map((a) => a.slug)).toEqual(['mine']);
    expect(await store.seeded()).toBe(true);
  });

  it('finishes a seed cut short and tolerates two replicas seeding at once', async () => {
    const store = fakeArticleStore();
    // A first start that wrote two articles and stopped before the marker.
    for (const s of seeds.slice(0, 2))
      await store.ensure({
        ...s,
        author: SEED_AUTHOR,
        excerpt: '',
        searchTokens: [],
        createdAt: new Date(),
        updatedAt: new Date(),
      });
    expect(await seedArticles({ store, articles: seeds, log })).toBe('seeded');
    expect(store.articles).toHaveLength(seeds.length);

    const shared = fakeArticleStore();
    await Promise.all([
      seedArticles({ store: shared, articles: seeds, log }),
      seedArticles({ store: shared, articles: seeds, log }),
    ]);
    expect(shared.articles.map((a) => a.slug).sort()).toEqual(seeds.map((s) => s.slug).sort());
  });
});
