import { eventually } from '../integration/helpers';
import {
  api,
  newSession,
  newUser,
  pathname,
  TEXT,
  toast,
  visible,
  expectTitle,
  browserForFile,
} from './helpers';

const browser = browserForFile();

describe('register and sign out', () => {
  it('registers through the form, lands on the dashboard, and signs out with a toast', async () => {
    const { page, context } = await newSession(browser());
    const user = newUser('register');
    try {
      await page.goto('/register');
      await expectTitle(page, 'Coffer – Register');
      await page.getByLabel('Full name').fill(user.name);
      await page.getByLabel('Email address').fill(user.email);
      await page.getByLabel('Password', { exact: true }).fill(user.password);
      await page.getByLabel('Confirm password').fill(user.password);
      await page.getByRole('button', { name: 'Create account' }).click();

      await page.waitForURL('**/dashboard');
      await visible(page.getByRole('heading', { name: 'Dashboard', level: 1 }));
      await visible(page.getByText('Manage and monitor your MongoDB backups'));
      await expectTitle(page, 'Coffer – Dashboard');

      const saved = await page.evaluate(() => window.localStorage.getItem('coffer-vault'));
      const record = JSON.parse(saved ?? 'null');
      expect(record).toMatchObject({
        token: expect.any(String),
        user: { email: user.email, name: user.name },
      });
      expect(typeof record.timestamp).toBe('number');

      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL('**/login');
      await visible(toast(page, TEXT.signedOut));
      await visible(toast(page, 'You have been signed out.'));
      expect(await page.evaluate(() => window.localStorage.getItem('coffer-vault'))).toBeNull();
      // The session ended on the server too: a copy of its token is refused (on every gateway
      // within its cached state's few seconds).
      await eventually(async () =>
        expect((await api('GET', '/api/user/profile', { token: record.token })).status).toBe(401),
      );

      // Signed out means protected pages send you back to /login.
      await page.goto('/profile');
      await page.waitForURL('**/login');
    } finally {
      await context.close();
    }
  });

  it('shows the form validation messages of the spec', async () => {
    const { page, context } = await newSession(browser());
    try {
      await page.goto('/register');
      await page.getByLabel('Full name').fill('A');
      await page.getByLabel('Email address').fill('not-an-email');
      await page.getByLabel('Password', { exact: true }).fill('123');
      await page.getByLabel('Confirm password').fill('1234');
      await page.getByRole('button', { name: 'Create account' }).click();
      await visible(page.getByText('Name must be at least 2 characters'));
      await visible(page.getByText('Please enter a valid email address'));
      await visible(page.getByText('Password must be at least 6 characters'));
      await visible(page.getByText("Passwords don't match"));
      expect(pathname(page)).toBe('/register');
    } finally {
      await context.close();
    }
  });
});
