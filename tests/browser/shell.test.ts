import { newSession, registeredUser, TEXT, toast, visible, expectTitle, browserForFile } from './helpers';

const browser = browserForFile();

/** A JWT-shaped token with the given claims (signature irrelevant: only expiry is read client-side). */
function fakeJwt(claims: Record<string, unknown>): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc(claims)}.c2lnbmF0dXJl`;
}

describe('app shell', () => {
  it('has the visitor menu, titles, help dropdown and footer', async () => {
    const { page, context, errors } = await newSession(browser());
    try {
      await page.goto('/');
      await expectTitle(page, 'Coffer – Home');
      const nav = page.getByRole('navigation', { name: 'Main' });
      for (const name of ['Home', 'About', 'Features', 'Pricing'])
        await visible(nav.getByRole('link', { name }));
      await visible(page.getByRole('link', { name: 'Log in' }));
      await visible(page.getByRole('link', { name: 'Sign up' }));

      await nav.getByRole('button', { name: 'Help' }).hover();
      const menu = page.getByRole('menu', { name: 'Help' });
      for (const name of ['Knowledge Base', 'Terms of Service', 'Privacy Policy', 'Contact']) {
        await visible(menu.getByRole('menuitem', { name }));
      }
      await page.mouse.move(5, 500);
      await menu.waitFor({ state: 'hidden', timeout: 2_000 });

      const footer = page.getByRole('navigation', { name: 'Footer' });
      for (const name of ['Privacy', 'Terms of Service', 'Contact'])
        await visible(footer.getByRole('link', { name }));

      await footer.getByRole('link', { name: 'Terms of Service' }).click();
      await page.waitForURL('**/terms');
      await expectTitle(page, 'Coffer – Terms of Service');
      expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('collapses the menu behind a button on small screens', async () => {
    const { page, context } = await newSession(browser(), { width: 390, height: 800 });
    try {
      await page.goto('/');
      await page.getByRole('navigation', { name: 'Main' }).waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: 'Open menu' }).click();
      const mobile = page.getByRole('navigation', { name: 'Mobile' });
      await mobile.getByRole('link', { name: 'About' }).click();
      await page.waitForURL('**/about');
      await mobile.waitFor({ state: 'hidden' });
    } finally {
      await context.close();
    }
  });

  it('clears a saved session whose token has expired and goes to /login', async () => {
    const { page, context } = await newSession(browser());
    try {
      await page.goto('/');
      await page.evaluate(
        (token) => {
          const user = {
            id: 'x',
            email: 'x@example.test',
            name: 'X',
            role: 'user',
            apiKey: '',
            isBanned: false,
            banReason: null,
            bannedAt: null,
          };
          localStorage.setItem('coffer-vault', JSON.stringify({ token, user, timestamp: Date.now() }));
        },
        fakeJwt({ sub: 'x', exp: Math.floor(Date.now() / 1000) - 60 }),
      );
      await page.goto('/dashboard');
      await page.waitForURL('**/login');
      expect(await page.evaluate(() => localStorage.getItem('coffer-vault'))).toBeNull();
    } finally {
      await context.close();
    }
  });

  it('treats an unparsable saved session as absent', async () => {
    const { page, context } = await newSession(browser());
    try {
      await page.goto('/');
      await page.evaluate(() => localStorage.setItem('coffer-vault', '{not json'));
      await page.goto('/profile');
      await page.waitForURL('**/login');
    } finally {
      await context.close();
    }
  });

  it('ends the session with a toast when the server rejects the token', async () => {
    const user = await registeredUser('expired');
    const { page, context } = await newSession(browser());
    try {
      await page.goto('/');
      // A well-formed, unexpired token the gateway does not accept (wrong signature) → 401.
      await page.evaluate(
        ({ token, user }) => {
          const u = {
            id: user.id,
            email: user.email,
            name: user.name,
            role: 'user',
            apiKey: '',
            isBanned: false,
            banReason: null,
            bannedAt: null,
          };
          localStorage.setItem('coffer-vault', JSON.stringify({ token, user: u, timestamp: Date.now() }));
        },
        { token: fakeJwt({ sub: user.id, exp: Math.floor(Date.now() / 1000) + 3600 }), user },
      );
      await page.goto('/profile');
      await page.waitForURL('**/login');
      await visible(toast(page, TEXT.sessionExpired));
      await visible(toast(page, 'Please sign in again.'));

      // F8 moves focus to the notification region.
      await page.keyboard.press('F8');
      await page.waitForFunction(
        () => document.activeElement?.getAttribute('aria-label') === 'Notifications (F8)',
      );
    } finally {
      await context.close();
    }
  });
});
