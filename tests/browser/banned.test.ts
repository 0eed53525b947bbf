import type { Page } from 'playwright-core';
import {
  adminToken,
  api,
  newSession,
  registeredUser,
  signIn,
  TEXT,
  toast,
  visible,
  expectTitle,
  browserForFile,
} from './helpers';

const browser = browserForFile();

async function ban(userId: string, banReason: string, isBanned = true) {
  const admin = await adminToken();
  const res = await api('PUT', `/api/admin/users/${userId}/ban`, {
    token: admin.token,
    body: { isBanned, banReason: isBanned ? banReason : null },
  });
  if (res.status !== 200) throw new Error(`ban failed: ${res.status} ${JSON.stringify(res.body)}`);
}

/**
 * Opens `path` until `landed` holds: the app reacts to the account's state on its next call, and a
 * gateway may serve that state from a cache for a few seconds.
 */
async function openUntil(page: Page, path: string, landed: () => Promise<void>) {
  const until = Date.now() + 20_000;
  for (;;) {
    await page.goto(path);
    try {
      await landed();
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
    }
  }
}

describe('banned accounts', () => {
  it('sends a signed-in user banned by an admin to /banned with the reason', async () => {
    const user = await registeredUser('banned');
    const { page, context } = await newSession(browser());
    try {
      await signIn(page, user);
      await ban(user.id, 'Testing');

      // The next protected call answers 403 ACCOUNT_BANNED and the app moves to /banned.
      await openUntil(page, '/profile', () => page.waitForURL('**/banned', { timeout: 3_000 }));
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
    const { page, context } = await newSession(browser());
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

  it('lets an unbanned user back in without signing out: the suspended page asks the server', async () => {
    const user = await registeredUser('unbanned');
    await ban(user.id, 'Testing');
    const { page, context } = await newSession(browser());
    try {
      await signIn(page, user, '/banned');
      await visible(page.getByRole('heading', { name: TEXT.suspended }));
      await ban(user.id, '', false);

      // The browser still holds the sign-in data that says 'banned'. Opening a page shows the
      // dashboard once the server no longer reports the ban; before, it stayed on /banned until
      // sign-out.
      await openUntil(page, '/dashboard', async () => {
        await page.waitForURL('**/dashboard', { timeout: 3_000 });
        await page.getByRole('heading', { name: 'Dashboard', exact: true }).waitFor({ timeout: 3_000 });
      });
      // And it stays there: the saved session no longer says banned.
      await page.reload();
      await visible(page.getByRole('heading', { name: 'Dashboard', exact: true }));
      expect(new URL(page.url()).pathname).toBe('/dashboard');
    } finally {
      await context.close();
    }
  });

  it('signs out a user an administrator set inactive, and says why (it used to be a silent dead end)', async () => {
    const user = await registeredUser('inactive');
    const { page, context } = await newSession(browser());
    try {
      await signIn(page, user);
      const admin = await adminToken();
      const res = await api('PUT', `/api/admin/users/${user.id}`, {
        token: admin.token,
        body: { status: 'inactive' },
      });
      expect(res.status).toBe(200);
      // The next signed-in call is refused: the app signs out and says why. (No reload once it has
      // moved to /login: the sign-out cleared the session, and a reload would show /login bare.)
      const until = Date.now() + 20_000;
      while (new URL(page.url()).pathname !== '/login') {
        if (Date.now() > until) throw new Error('never signed out');
        await page.goto('/profile');
        await page.waitForURL('**/login', { timeout: 3_000 }).catch(() => undefined);
      }
      await visible(toast(page, 'Account inactive'));
    } finally {
      await context.close();
    }
  });
});
