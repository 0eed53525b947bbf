import type { Browser } from 'playwright-core';
import {
  adminToken,
  api,
  launch,
  newSession,
  registeredUser,
  signIn,
  TEXT,
  visible,
  expectTitle,
} from './helpers';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

async function ban(userId: string, banReason: string) {
  const admin = await adminToken();
  const res = await api('PUT', `/api/admin/users/${userId}/ban`, {
    token: admin.token,
    body: { isBanned: true, banReason },
  });
  if (res.status !== 200) throw new Error(`ban failed: ${res.status} ${JSON.stringify(res.body)}`);
}

describe('banned accounts', () => {
  it('sends a signed-in user banned by an admin to /banned with the reason', async () => {
    const user = await registeredUser('banned');
    const { page, context } = await newSession(browser);
    try {
      await signIn(page, user);
      await ban(user.id, 'Testing');

      // The next protected call answers 403 ACCOUNT_BANNED and the app moves to /banned.
      // (A gateway may serve the account state from a cache for a few seconds: retry.)
      const until = Date.now() + 20_000;
      for (;;) {
        await page.goto('/profile');
        try {
          await page.waitForURL('**/banned', { timeout: 3_000 });
          break;
        } catch (err) {
          if (Date.now() > until) throw err;
        }
      }
      await visible(page.getByRole('heading', { name: TEXT.suspended }));
      await visible(page.getByText('Testing', { exact: true }));
      expect(await page.getByTestId('ban-date').innerText()).not.toBe('Unknown date');
      await expectTitle(page, 'Coffer – Account Suspended');

      // The guard keeps a banned user out of every login-required page.
      await page.goto('/dashboard');
      await page.waitForURL('**/banned');

      await page.getByRole('button', { name: 'Sign Out' }).click();
      await page.waitForURL('**/login');
    } finally {
      await context.close();
    }
  });

  it('sends a banned user who signs in straight to /banned', async () => {
    const user = await registeredUser('banned-login');
    await ban(user.id, 'Testing');
    const { page, context } = await newSession(browser);
    try {
      await signIn(page, user, '/banned');
      await visible(page.getByRole('heading', { name: TEXT.suspended }));
      await visible(page.getByText('Testing', { exact: true }));
      await page.getByRole('button', { name: 'Return to Home' }).click();
      await page.waitForURL((url) => url.pathname === '/');
    } finally {
      await context.close();
    }
  });
});
