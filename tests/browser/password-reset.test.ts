import {
  appUrl,
  newSession,
  pathname,
  registeredUser,
  signIn,
  visible,
  waitForMail,
  browserForFile,
} from './helpers';

const browser = browserForFile();

const resetPath = (text: string) => /\/reset-password\/[A-Za-z0-9_-]+/.exec(text)?.[0];

describe('forgot and reset password', () => {
  it('mails a reset link that sets a new password; only the new one signs in afterwards', async () => {
    const user = await registeredUser('reset');
    const newPassword = `new-${user.password}`;
    const { page, context } = await newSession(browser());
    try {
      await page.goto('/login');
      await page.getByRole('link', { name: 'Forgot your password?' }).click();
      await page.waitForURL('**/forgot-password');
      await visible(page.getByRole('heading', { name: 'Reset your password' }));
      await page.getByLabel('Email address').fill(user.email);
      await page.getByRole('button', { name: 'Send reset link' }).click();
      await visible(
        page.getByText('If an account with that email exists, a password reset link has been sent.'),
      );
      await visible(page.getByRole('button', { name: 'Try another email' }));

      // The mail really went out through SMTP and arrived in MailDev.
      const mail = await waitForMail(
        user.email,
        (m) => /reset-password/.test(m.text ?? '') || /reset-password/.test(m.html ?? ''),
      );
      const path = resetPath(mail.text ?? '') ?? resetPath(mail.html ?? '');
      expect(path).toBeDefined();

      await page.goto(appUrl(path!));
      await visible(page.getByText('Create new password'));
      await page.getByLabel('New Password').fill(newPassword);
      await page.getByLabel('Confirm Password').fill('something-else');
      await page.getByRole('button', { name: 'Reset Password' }).click();
      await visible(page.getByText("Passwords don't match"));

      await page.getByLabel('Confirm Password').fill(newPassword);
      await page.getByRole('button', { name: 'Reset Password' }).click();
      await visible(page.getByText('Password has been reset successfully'));
      await visible(page.getByText('Redirecting to login page...'));
      await visible(page.getByRole('link', { name: 'Go to login' }));
      // Moves to /login on its own after 3 s.
      await page.waitForURL('**/login', { timeout: 10_000 });

      // The old password no longer works…
      await page.getByLabel('Email', { exact: true }).fill(user.email);
      await page.getByLabel('Password', { exact: true }).fill(user.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await visible(page.getByRole('alert').filter({ hasText: 'Invalid email or password' }));
      expect(pathname(page)).toBe('/login');

      // …the new one does.
      await signIn(page, { email: user.email, password: newPassword });
      await visible(page.getByRole('heading', { name: 'Dashboard', level: 1 }));

      // The link is single-use.
      await page.goto(appUrl(path!));
      await visible(page.getByText('Invalid or expired reset token'));
      await visible(page.getByRole('link', { name: 'Request a new password reset' }));
    } finally {
      await context.close();
    }
  });

  it('says so for a token that is not valid', async () => {
    const { page, context } = await newSession(browser());
    try {
      await page.goto('/reset-password/not-a-real-token');
      await visible(page.getByText('Invalid or expired reset token'));
      await page.getByRole('link', { name: 'Request a new password reset' }).click();
      await page.waitForURL('**/forgot-password');
    } finally {
      await context.close();
    }
  });
});
