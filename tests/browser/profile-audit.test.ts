import {
  api,
  auditRow,
  expectTitle,
  newSession,
  registeredUser,
  signIn,
  TEXT,
  visible,
  browserForFile,
} from './helpers';

const browser = browserForFile();

describe('profile and audit logs', () => {
  it('changes the password on /profile and lists PASSWORD_CHANGED on /audit-logs', async () => {
    const user = await registeredUser('profile');
    const newPassword = `changed-${user.password}`;
    const { page, context } = await newSession(browser());
    try {
      await signIn(page, user);
      await page.goto('/profile');
      await visible(page.getByRole('heading', { name: 'My Profile' }));
      await expectTitle(page, 'Coffer – Profile');
      // Account tab is the default and shows the user's data.
      await page.getByLabel('Full Name').waitFor();
      expect(await page.getByLabel('Full Name').inputValue()).toBe(user.name);
      expect(await page.getByLabel('Email Address').inputValue()).toBe(user.email);

      await page.getByRole('tab', { name: 'Security' }).click();
      // Mismatch is caught before any call.
      await page.getByLabel('Current Password').fill(user.password);
      await page.getByLabel('New Password', { exact: true }).fill(newPassword);
      await page.getByLabel('Confirm New Password').fill(`${newPassword}x`);
      await page.getByRole('button', { name: 'Update Password' }).click();
      await visible(page.getByText('New passwords do not match'));

      // A wrong current password is the server's message, and the session survives it.
      await page.getByLabel('Current Password').fill('not-my-password');
      await page.getByLabel('Confirm New Password').fill(newPassword);
      await page.getByRole('button', { name: 'Update Password' }).click();
      await visible(page.getByText('Current password is incorrect'));
      expect(new URL(page.url()).pathname).toBe('/profile');

      await page.getByLabel('Current Password').fill(user.password);
      await page.getByRole('button', { name: 'Update Password' }).click();
      await visible(page.getByText(TEXT.passwordUpdated));
      for (const label of ['Current Password', 'Confirm New Password']) {
        expect(await page.getByLabel(label).inputValue()).toBe('');
      }
      expect(await page.getByLabel('New Password', { exact: true }).inputValue()).toBe('');

      // The audit entry is written asynchronously from the auth event: reload until it shows.
      await page.getByRole('link', { name: 'Audit Logs' }).first().click();
      await page.waitForURL('**/audit-logs');
      await expectTitle(page, 'Coffer – Audit Logs');
      const row = await auditRow(page, 'PASSWORD_CHANGED');
      await visible(row);
      await visible(page.getByText(/Page 1 of \d+/));
      // The timestamp reads 'MMM d, yyyy HH:mm:ss'.
      expect(await row.locator('td').first().innerText()).toMatch(
        /^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{2}:\d{2}:\d{2}$/,
      );

      // The filter offers the action and keeps the row.
      await page.getByLabel('Filter by action').selectOption('PASSWORD_CHANGED');
      await visible(row);

      // The new password is the one that works now.
      const login = await api('POST', '/api/auth/login', {
        body: { email: user.email, password: newPassword },
      });
      expect(login.status).toBe(200);
    } finally {
      await context.close();
    }
  });

  it('asks for the current password to change the email, and shows the server refusing a wrong one', async () => {
    const user = await registeredUser('account-email');
    const next = `moved-${user.email}`;
    const { page, context } = await newSession(browser());
    try {
      await signIn(page, user);
      await page.goto('/profile');
      await page.getByLabel('Email Address').fill(next);
      await page.getByLabel('Current Password').fill('not-my-password');
      await page.getByRole('button', { name: 'Save Changes' }).click();
      await visible(page.getByText('Current password is incorrect'));
      await page.getByLabel('Current Password').fill(user.password);
      await page.getByRole('button', { name: 'Save Changes' }).click();
      await visible(page.getByText('Profile updated successfully!'));
      const record = JSON.parse((await page.evaluate(() => localStorage.getItem('coffer-vault'))) ?? 'null');
      expect(record.user.email).toBe(next);
    } finally {
      await context.close();
    }
  });

  it('updates name and email and keeps them in the saved session', async () => {
    const user = await registeredUser('account');
    const { page, context } = await newSession(browser());
    try {
      await signIn(page, user);
      await page.goto('/profile');
      await page.getByLabel('Full Name').fill('Renamed Person');
      await page.getByRole('button', { name: 'Save Changes' }).click();
      await visible(page.getByText('Profile updated successfully!'));
      const record = JSON.parse((await page.evaluate(() => localStorage.getItem('coffer-vault'))) ?? 'null');
      expect(record.user.name).toBe('Renamed Person');

      await page.getByRole('tab', { name: 'Billing & Plan' }).click();
      await visible(page.getByText('Current Plan', { exact: true }));
      await visible(page.getByText('Storage Used'));
      await visible(page.getByRole('button', { name: 'Current Plan' }));
      expect(await page.getByRole('button', { name: 'Current Plan' }).isDisabled()).toBe(true);
    } finally {
      await context.close();
    }
  });
});
