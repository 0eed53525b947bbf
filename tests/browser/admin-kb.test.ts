// The admin's article list and editor in a real browser: validation toasts in the spec's order,
// Generate, tags on Enter, Preview/Edit, create → /admin/kb/{id}, a draft hidden from visitors,
// publishing from the list, editing, a slug clash, and deleting with the confirmation.
import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { slugFromTitle } from '@coffer/contracts';
import {
  api,
  newSession,
  pathname,
  registeredUser,
  signIn,
  signInAsAdmin,
  toast,
  visible,
  browserForFile,
} from './helpers';

const browser = browserForFile();

async function expectToast(page: Page, title: string, description?: string) {
  const t = toast(page, title);
  await visible(t);
  if (description) await visible(t.getByText(description, { exact: true }));
}

/** The list row of the article with this slug, after searching for it. */
async function rowOf(page: Page, slug: string) {
  await page.getByLabel('Search articles').fill(slug);
  const row = page.getByTestId('admin-article-row').filter({ hasText: slug });
  await visible(row);
  return row;
}

describe('admin knowledge base', () => {
  it('creates, previews, publishes, edits and deletes an article', async () => {
    const word = `adminkb${crypto.randomBytes(4).toString('hex')}`;
    const title = `Restore by hand: ${word}!`;
    const slug = slugFromTitle(title);
    const { page, context, errors } = await newSession(browser());
    const visitor = await newSession(browser());
    try {
      await signInAsAdmin(page);
      await page.goto('/admin/kb');
      await visible(page.getByRole('heading', { name: 'Knowledge Base Articles' }));
      await page.getByRole('link', { name: 'New Article' }).click();
      await page.waitForURL('**/admin/kb/new');

      // Save checks title, then slug, then content, each as a 'Validation Error' toast.
      const save = page.getByRole('button', { name: 'Save', exact: true });
      await save.click();
      await expectToast(page, 'Validation Error', 'Title is required');
      await page.getByLabel('Title').fill(title);
      await save.click();
      await expectToast(page, 'Validation Error', 'Slug is required');
      await page.getByRole('button', { name: 'Generate' }).click();
      expect(await page.getByLabel('Slug').inputValue()).toBe(slug);
      await save.click();
      await expectToast(page, 'Validation Error', 'Content is required');

      await page.getByLabel('Category').selectOption('usage');
      await page.getByLabel('Display Order').fill('5');
      // Tags: Enter adds a new, non-blank tag once.
      const tags = page.getByLabel('Tags');
      for (const t of [' restore ', 'restore', '   ', 'manual']) {
        await tags.fill(t);
        await tags.press('Enter');
      }
      expect(await page.getByTestId('editor-tags').innerText()).toMatch(/^restore\s*manual$/);
      await page
        .getByLabel('Content')
        .fill(`## Before you start\n\nKeep the key ${word}.\n\n\`\`\`\ncoffer-agent restore\n\`\`\``);
      // A draft: the switch is on by default for a new article.
      await page.getByText('Published', { exact: true }).click();

      // Preview renders the markdown; Edit returns to the form with everything kept.
      await page.getByRole('button', { name: 'Preview' }).click();
      const preview = page.getByTestId('article-preview');
      await visible(preview.getByRole('heading', { name: 'Before you start' }));
      await visible(preview.getByText('Draft', { exact: true }));
      await visible(preview.getByTestId('copy-code'));
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      expect(await page.getByLabel('Title').inputValue()).toBe(title);

      await save.click();
      await expectToast(page, 'Article created successfully');
      await page.waitForURL(/\/admin\/kb\/[0-9a-f]{24}$/);
      const id = new URL(page.url()).pathname.split('/').pop()!;
      await visible(page.getByRole('heading', { name: 'Edit Article' }));
      expect(await page.getByLabel('Slug').inputValue()).toBe(slug);
      expect(await page.getByLabel('Display Order').inputValue()).toBe('5');

      // A draft is invisible to visitors: not listed, and its address is not found.
      expect((await api('GET', `/api/kb/${slug}`)).status).toBe(404);
      expect((await api('GET', `/api/kb?search=${word}`)).body.articles).toEqual([]);
      await visitor.page.goto(`/kb/${slug}`);
      await visible(visitor.page.getByRole('heading', { name: 'Article not found' }));

      // The list shows it as a draft; its switch publishes it.
      await page.getByRole('link', { name: 'Back' }).click();
      await page.waitForURL((u) => u.pathname === '/admin/kb');
      await page.getByLabel('Filter by status').selectOption('draft');
      let row = await rowOf(page, slug);
      // View opens the draft in a new tab. The public read goes without a token, admins' too (product
      // §6); the admin's page finds the draft in the list of articles they manage.
      const kbReads: Array<{ path: string; token: boolean }> = [];
      const onRequest = (req: import('playwright-core').Request) => {
        const { pathname } = new URL(req.url());
        if (pathname.startsWith('/api/kb') && req.method() === 'GET')
          kbReads.push({ path: pathname, token: 'authorization' in req.headers() });
      };
      context.on('request', onRequest);
      const [viewed] = await Promise.all([
        context.waitForEvent('page'),
        row.getByRole('link', { name: 'View' }).click(),
      ]);
      await visible(viewed.getByRole('heading', { level: 1, name: title }));
      await visible(viewed.getByText('Draft', { exact: true }));
      context.off('request', onRequest);
      expect(kbReads).toEqual(
        expect.arrayContaining([
          { path: `/api/kb/${slug}`, token: false },
          { path: '/api/kb/admin/all', token: true },
        ]),
      );
      expect(kbReads.filter((r) => r.path === `/api/kb/${slug}` && r.token)).toEqual([]);
      await viewed.close();
      await row.getByRole('checkbox').click({ force: true });
      await expectToast(page, 'Article published successfully');
      // Published now: the draft filter no longer lists it.
      await visible(page.getByText('No articles found'));
      await page.getByLabel('Filter by status').selectOption('published');
      row = await rowOf(page, slug);
      expect((await api('GET', `/api/kb/${slug}`)).status).toBe(200);
      await visitor.page.goto(`/kb/${slug}`);
      await visible(visitor.page.getByRole('heading', { level: 1, name: title }));

      // Edit from the list.
      await row.getByRole('link', { name: 'Edit' }).click();
      await page.waitForURL(`**/admin/kb/${id}`);
      await page.getByLabel('Title').fill(`${title} (updated)`);
      await save.click();
      await expectToast(page, 'Article updated successfully');
      expect((await api('GET', `/api/kb/${slug}`)).body.title).toBe(`${title} (updated)`);

      // A second article with the same slug: the server's message.
      await page.goto('/admin/kb/new');
      await page.getByLabel('Title').fill('Another');
      await page.getByLabel('Slug').fill(slug);
      await page.getByLabel('Content').fill('Text');
      await save.click();
      await visible(
        toast(page, 'Error').getByText(
          `An article with the slug '${slug}' already exists. Choose another slug.`,
        ),
      );
      expect(pathname(page)).toBe('/admin/kb/new');

      // Delete asks first; Cancel keeps it.
      await page.goto('/admin/kb');
      row = await rowOf(page, slug);
      await row.getByRole('button', { name: 'Delete' }).click();
      const dialog = page.getByTestId('confirm-dialog');
      await visible(
        dialog.getByText('Are you sure you want to delete this article? This action cannot be undone.'),
      );
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect((await api('GET', `/api/kb/${slug}`)).status).toBe(200);
      await row.getByRole('button', { name: 'Delete' }).click();
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await expectToast(page, 'Article deleted successfully');
      await visible(page.getByText('No articles found'));
      expect((await api('GET', `/api/kb/${slug}`)).status).toBe(404);

      // An editor address for an article that is gone.
      await page.goto(`/admin/kb/${id}`);
      await expectToast(page, 'Article not found');
      await page.waitForURL((u) => u.pathname === '/admin/kb');
      // The browser reports the expected 409 itself; nothing else went wrong.
      expect(errors.filter((e) => !e.includes('status of 409'))).toEqual([]);
    } finally {
      await context.close();
      await visitor.context.close();
    }
  });

  it('shows admins an Edit Article link on the article page, and keeps other users out', async () => {
    const word = `adminkb${crypto.randomBytes(4).toString('hex')}`;
    const { page, context } = await newSession(browser());
    const other = await newSession(browser());
    try {
      await signInAsAdmin(page);
      await page.goto('/admin/kb/new');
      await page.getByLabel('Title').fill(`Linked ${word}`);
      await page.getByRole('button', { name: 'Generate' }).click();
      await page.getByLabel('Content').fill('Body');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\/admin\/kb\/[0-9a-f]{24}$/);
      const id = new URL(page.url()).pathname.split('/').pop()!;

      await page.goto(`/kb/linked-${word}`);
      await page.getByRole('link', { name: 'Edit Article' }).click();
      await page.waitForURL(`**/admin/kb/${id}`);
      expect(await page.getByLabel('Title').inputValue()).toBe(`Linked ${word}`);

      // A signed-in user who is not an admin is sent to the dashboard.
      const user = await registeredUser('kbuser');
      await signIn(other.page, user);
      await other.page.goto('/admin/kb');
      await other.page.waitForURL((u) => u.pathname === '/dashboard');
      await other.page.goto(`/kb/linked-${word}`);
      await visible(other.page.getByRole('heading', { level: 1, name: `Linked ${word}` }));
      expect(await other.page.getByRole('link', { name: 'Edit Article' }).count()).toBe(0);
    } finally {
      await context.close();
      await other.context.close();
    }
  });

  it('fits the list and the editor on a 375 px phone screen', async () => {
    const { page, context } = await newSession(browser(), { width: 375, height: 740 });
    try {
      await signInAsAdmin(page);
      for (const [path, heading] of [
        ['/admin/kb', 'Knowledge Base Articles'],
        ['/admin/kb/new', 'New Article'],
      ] as const) {
        await page.goto(path);
        await visible(page.getByRole('heading', { name: heading }));
        await page.waitForLoadState('networkidle');
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect({ path, overflow }).toEqual({ path, overflow: 0 });
      }
      // Every action of the editor is reachable.
      for (const name of ['Back', 'Preview', 'Save', 'Generate'])
        await visible(page.getByRole(name === 'Back' ? 'link' : 'button', { name, exact: true }));
    } finally {
      await context.close();
    }
  });
});
