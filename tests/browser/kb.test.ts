// The public knowledge base in a real browser: search, category and tag filters by the rules of
// product §4, paging, an article with its table of contents and code copy, and hostile markdown.
import crypto from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { adminToken, api, launch, newSession, visible } from './helpers';

let browser: Browser;
let admin: { token: string };
beforeAll(async () => {
  browser = await launch();
  admin = await adminToken();
});
afterAll(async () => {
  await browser?.close();
});

/** A word only this run's articles contain, so searches and counts are this test's own. */
const word = `kbweb${crypto.randomBytes(4).toString('hex')}`;
const tag = `tag${crypto.randomBytes(4).toString('hex')}`;

interface Created {
  _id: string;
  slug: string;
  title: string;
}

async function createArticle(body: Record<string, unknown>): Promise<Created> {
  const res = await api('POST', '/api/kb', { token: admin.token, body });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Created;
}

const GUIDE = [
  'Read this before you start.',
  '',
  '## Install the agent',
  '',
  'Run the installer:',
  '',
  '```bash',
  'curl -fsSL https://coffer.example/install.sh | sudo bash',
  '```',
  '',
  ...Array.from({ length: 40 }, (_, i) => `Filler paragraph ${i} so the page is long enough to scroll.\n`),
  '### Check the service',
  '',
  ...Array.from({ length: 40 }, (_, i) => `More filler ${i}.\n`),
  '## Restore a backup',
  '',
  'The end.',
].join('\n');

const cards = (page: Page) => page.getByTestId('kb-article-card');
const query = (page: Page) => Object.fromEntries(new URL(page.url()).searchParams);

/** Waits until the list shows exactly `n` cards (after a filter change the old page stays until the answer). */
async function expectCards(page: Page, n: number) {
  await page.waitForFunction(
    (count) => document.querySelectorAll('[data-testid="kb-article-card"]').length === count,
    n,
  );
}

describe('knowledge base', () => {
  let guide: Created;

  beforeAll(async () => {
    // 12 published articles (two pages of 10): 11 troubleshooting, one FAQ; all share the tag.
    guide = await createArticle({
      title: `Install guide ${word}`,
      slug: `install-guide-${word}`,
      content: GUIDE,
      category: 'troubleshooting',
      tags: [tag, 'agent'],
    });
    for (let i = 1; i <= 10; i++) {
      await createArticle({
        title: `Answer ${i} ${word}`,
        slug: `answer-${i}-${word}`,
        content: `Answer number ${i}.`,
        category: 'troubleshooting',
        tags: [tag],
      });
    }
    await createArticle({
      title: `Question ${word}`,
      slug: `question-${word}`,
      content: 'A frequently asked question.',
      category: 'faq',
      tags: [tag],
    });
  });

  it('searches, filters by category and tag, clears filters and pages', async () => {
    const { page, context, errors } = await newSession(browser);
    try {
      await page.goto('/kb');
      await visible(page.getByRole('heading', { name: 'How can we help you?' }));
      for (const name of ['Getting Started', 'Troubleshooting', 'Security Guide', 'Contact Support'])
        await visible(page.getByRole('link', { name, exact: true }));
      await visible(page.getByRole('heading', { name: 'Browse by Category' }));
      await visible(page.getByRole('heading', { name: 'Popular Tags' }));

      // Search: 12 hits, 10 on the first page, the pager shows because there are two pages.
      await page.getByLabel('Search articles').fill(word);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForURL((u) => u.searchParams.get('search') === word);
      await expectCards(page, 10);
      await visible(page.getByRole('button', { name: 'Page 2' }));
      await page.getByRole('button', { name: 'Next' }).click();
      await page.waitForURL((u) => u.searchParams.get('page') === '2');
      await expectCards(page, 2);
      expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);

      // A category goes back to page 1 and narrows the list to the FAQ article.
      await page.getByTestId('kb-categories').getByRole('button', { name: /^Faq/ }).click();
      await page.waitForURL((u) => u.searchParams.get('category') === 'faq');
      expect(query(page)).toEqual({ search: word, category: 'faq' });
      await expectCards(page, 1);
      await visible(cards(page).getByRole('link', { name: `Question ${word}` }));
      await visible(page.getByTestId('kb-filter-chip').filter({ hasText: 'Faq' }));
      // No pager for a single page.
      expect(await page.getByRole('navigation', { name: 'Pagination' }).count()).toBe(0);

      // A tag keeps the category; choosing another category clears the tag.
      await page
        .getByTestId('kb-tags')
        .getByRole('button', { name: new RegExp(`^${tag} \\(\\d+\\)$`) })
        .click();
      await page.waitForURL((u) => u.searchParams.get('tag') === tag);
      expect(query(page)).toEqual({ search: word, category: 'faq', tag });
      await expectCards(page, 1);
      await page
        .getByTestId('kb-categories')
        .getByRole('button', { name: /^Troubleshooting/ })
        .click();
      await page.waitForURL((u) => u.searchParams.get('category') === 'troubleshooting');
      expect(query(page)).toEqual({ search: word, category: 'troubleshooting' });
      await expectCards(page, 10);

      // 'Clear all' keeps the search text only.
      await page
        .getByTestId('kb-tags')
        .getByRole('button', { name: new RegExp(`^${tag} `) })
        .click();
      await page.waitForURL((u) => u.searchParams.get('tag') === tag);
      await page.getByRole('button', { name: 'Clear all' }).click();
      await page.waitForURL((u) => !u.searchParams.has('tag') && !u.searchParams.has('category'));
      expect(query(page)).toEqual({ search: word });
      await expectCards(page, 10);
      expect(await page.getByLabel('Search articles').inputValue()).toBe(word);

      // Nothing found: the filtered empty state, and 'Clear filters' empties the address.
      await page.getByLabel('Search articles').fill(`${word}nothing`);
      await page.getByLabel('Search articles').press('Enter');
      await visible(page.getByRole('heading', { name: 'No articles found' }));
      await visible(page.getByText('Try adjusting your search or filters'));
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await page.waitForURL((u) => u.pathname === '/kb' && u.search === '');
      await page.waitForFunction(
        () => document.querySelector<HTMLInputElement>('input[type="search"]')?.value === '',
      );

      // A shortcut card is a category link.
      await page.getByRole('link', { name: 'Troubleshooting', exact: true }).click();
      await page.waitForURL((u) => u.searchParams.get('category') === 'troubleshooting');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('says a page past the last one is past the last one, not that nothing was published', async () => {
    const { page, context } = await newSession(browser);
    try {
      const { pages } = (await api('GET', '/api/kb')).body.pagination as { pages: number };
      await page.goto(`/kb?page=${pages + 5}`);
      const empty = page.getByTestId('kb-empty');
      await visible(empty.getByText('No articles found'));
      await visible(empty.getByText(`This page is past the last one (page ${pages}).`));
      expect(await page.getByText('No articles have been published yet').count()).toBe(0);
      await empty.getByRole('button', { name: `Go to page ${pages}` }).click();
      await visible(page.getByTestId('kb-article-card').first());
    } finally {
      await context.close();
    }
  });

  it('opens an article, follows its table of contents and copies a code block', async () => {
    const { page, context, errors } = await newSession(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    try {
      await page.goto(`/kb?search=install+${word}&category=troubleshooting`);
      await cards(page).getByRole('link', { name: guide.title }).click();
      await page.waitForURL(`**/kb/${guide.slug}`);
      await visible(page.getByRole('heading', { level: 1, name: guide.title }));
      await visible(page.getByTestId('article-category').filter({ hasText: 'Troubleshooting' }));
      await visible(page.getByText(/^Updated [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M$/));
      await visible(page.getByText('Was this article helpful?'));

      // The contents lists the headings, the h3 indented under the h2s.
      const toc = page.getByRole('navigation', { name: 'Table of contents' }).locator('visible=true');
      const entries = toc.getByRole('link');
      expect(await entries.allInnerTexts()).toEqual([
        'Install the agent',
        'Check the service',
        'Restore a backup',
      ]);
      const indent = (name: string) =>
        toc
          .getByRole('listitem')
          .filter({ hasText: name })
          .evaluate((li) => parseFloat(getComputedStyle(li).paddingLeft));
      expect(await indent('Check the service')).toBeGreaterThan(await indent('Install the agent'));

      // Following an entry brings its heading to 120 px below the top of the window.
      await toc.getByRole('link', { name: 'Check the service' }).click();
      await page.waitForFunction(() => {
        const top = document.getElementById('kb-check-the-service')?.getBoundingClientRect().top ?? -1;
        return Math.abs(top - 120) < 2;
      });

      // Copy puts the code on the clipboard and says so.
      await page.getByRole('heading', { name: 'Install the agent' }).scrollIntoViewIfNeeded();
      await page.getByTestId('copy-code').first().click();
      await visible(page.getByTestId('copy-code').filter({ hasText: 'Copied!' }));
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
        'curl -fsSL https://coffer.example/install.sh | sudo bash',
      );
      // …and turns back into Copy afterwards.
      await visible(page.getByTestId('copy-code').filter({ hasText: /^Copy$/ }));

      // Visitors get no Edit Article link; a tag leads back to the list filtered by it.
      expect(await page.getByRole('link', { name: 'Edit Article' }).count()).toBe(0);
      await page.getByRole('link', { name: tag, exact: true }).click();
      await page.waitForURL((u) => u.pathname === '/kb' && u.searchParams.get('tag') === tag);
      await expectCards(page, 10);
      expect(errors).toEqual([]);

      // An address that names no article.
      await page.goto(`/kb/no-such-article-${word}`);
      await visible(page.getByRole('heading', { name: 'Article not found' }));
      await visible(page.getByText("The article you're looking for could not be found."));
      await page.getByRole('link', { name: 'Back to Knowledge Base' }).click();
      await page.waitForURL((u) => u.pathname === '/kb');
    } finally {
      await context.close();
    }
  });

  it('renders an article with script, handlers, script links and frames inert', async () => {
    const hostile = await createArticle({
      title: `Hostile ${word}`,
      slug: `hostile-${word}`,
      content: [
        '## Trap',
        '',
        '<script>window.__kbPwned = "script"; alert("script")</script>',
        '',
        '<img src="x" onerror="window.__kbPwned = \'onerror\'; alert(\'onerror\')">',
        '',
        '<iframe src="/" onload="window.__kbPwned = \'iframe\'"></iframe>',
        '',
        '[Click me](javascript:window.__kbPwned=%22link%22;alert(1))',
        '',
        'Inline <a href="javascript:alert(2)" onclick="alert(3)">raw link</a> and <svg onload="alert(4)"></svg>',
        '',
        '```html',
        '<script>alert("in code")</script>',
        '```',
      ].join('\n'),
      category: 'security',
    });
    const { page, context } = await newSession(browser);
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    try {
      await page.goto(`/kb/${hostile.slug}`);
      await visible(page.getByRole('heading', { name: 'Trap' }));
      const content = page.getByTestId('article-content');
      // The markup is shown as text…
      await visible(content.getByText('<script>window.__kbPwned', { exact: false }));
      // …and the link text is there, but not as a link anywhere.
      await visible(content.getByText('[Click me]', { exact: false }));
      await content.getByText('[Click me]', { exact: false }).click();

      const found = await page.evaluate(() => ({
        pwned: (window as unknown as { __kbPwned?: string }).__kbPwned ?? null,
        scripts: document.querySelectorAll('[data-testid="article-content"] script').length,
        frames: document.querySelectorAll('iframe, frame, object, embed').length,
        handlers: Array.from(document.querySelectorAll('*')).filter((el) =>
          Array.from(el.attributes).some((a) => /^on/i.test(a.name)),
        ).length,
        scriptLinks: Array.from(document.querySelectorAll('[href], [src]')).filter((el) =>
          /^\s*(javascript|vbscript|data):/i.test(el.getAttribute('href') ?? el.getAttribute('src') ?? ''),
        ).length,
      }));
      expect(found).toEqual({ pwned: null, scripts: 0, frames: 0, handlers: 0, scriptLinks: 0 });
      expect(dialogs).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('fits a 375 px phone screen', async () => {
    const { page, context } = await newSession(browser, { width: 375, height: 740 });
    try {
      for (const path of [`/kb?search=${word}`, `/kb/${guide.slug}`]) {
        await page.goto(path);
        await visible(page.getByRole('heading', { level: 1 }));
        await page.waitForLoadState('networkidle');
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect({ path, overflow }).toEqual({ path, overflow: 0 });
      }
      // On a phone the contents sits above the article.
      await visible(page.getByRole('navigation', { name: 'Table of contents' }).locator('visible=true'));
    } finally {
      await context.close();
    }
  });
});
