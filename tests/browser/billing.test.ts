// Profile → Billing & Plan on the shared test stack, which has no payment provider configured.
import {
  adminToken,
  api,
  inViewport,
  newSession,
  registeredUser,
  signIn,
  visible,
  browserForFile,
} from './helpers';

const browser = browserForFile();

const NO_BILLING =
  'Billing is not set up on this server, so paid plans cannot be bought here. An administrator can change your plan in the admin console.';

async function planIds(): Promise<Record<string, string>> {
  const res = await api('GET', '/api/settings/plans');
  return Object.fromEntries((res.body as Array<{ _id: string; name: string }>).map((p) => [p.name, p._id]));
}

describe('billing and plans', () => {
  for (const [width, height] of [
    [1280, 800],
    [375, 740],
  ] as const) {
    it(`explains, on Upgrade, that billing is not set up here, where the user clicked (${width}×${height})`, async () => {
      const user = await registeredUser('upgrade');
      const { page, context } = await newSession(browser());
      try {
        await page.setViewportSize({ width, height });
        await signIn(page, user);
        await page.goto('/profile');
        await page.getByRole('tab', { name: 'Billing & Plan' }).click();
        const ids = await planIds();
        const upgrade = page.getByTestId(`plan-${ids.Pro}`).getByRole('button', { name: 'Upgrade' });
        // The plan cards are below the fold: the user scrolls to the button and clicks it there.
        await upgrade.scrollIntoViewIfNeeded();
        await upgrade.click();
        const answer = page.getByText(NO_BILLING);
        await visible(answer);
        // Beside the button, in sight (it used to appear at the top of the tab, out of view).
        await visible(page.getByTestId(`plan-${ids.Pro}`).getByText(NO_BILLING));
        expect(await inViewport(answer)).toBe(true);
        expect(await inViewport(upgrade)).toBe(true);
        expect(new URL(page.url()).pathname).toBe('/profile');
        expect(await page.getByTestId('current-plan-name').textContent()).toBe('Free');
      } finally {
        await context.close();
      }
    });
  }

  it('shows what a downgrade changed: the clamped schedule and retention', async () => {
    const user = await registeredUser('downgrade');
    const ids = await planIds();
    const admin = await adminToken();
    // A paid plan given by an administrator (the way to get one without a payment provider).
    const given = await api('PUT', `/api/admin/users/${user.id}`, {
      token: admin.token,
      body: { plan: ids.Pro },
    });
    expect(given.status).toBe(200);
    const schedule = await api('PUT', '/api/settings', {
      token: user.token,
      body: { frequency: 'hourly', retention: 2160 },
    });
    expect(schedule.status).toBe(200);

    const { page, context } = await newSession(browser());
    try {
      await signIn(page, user);
      await page.goto('/profile');
      await page.getByRole('tab', { name: 'Billing & Plan' }).click();
      await visible(page.getByTestId('current-plan-name').getByText('Pro'));
      // A downgrade asks first, and says when it takes effect: a plan an administrator gave has no
      // paid period (the Terms' "end of the current paid term"), so at once.
      const downgrade = page.getByTestId(`plan-${ids.Free}`).getByRole('button', { name: 'Downgrade' });
      await downgrade.click();
      const dialog = page.getByRole('alertdialog');
      await visible(dialog.getByText('Downgrade to Free', { exact: true }));
      await visible(dialog.getByText(/not a paid subscription, so there is no paid period to wait for/));
      await visible(dialog.getByText(/Backups older than 7 days are then deleted\./));
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(await page.getByTestId('current-plan-name').textContent()).toBe('Pro');
      expect((await api('GET', '/api/user/profile', { token: user.token })).body.plan).toBe(ids.Pro);

      await downgrade.click();
      await dialog.getByRole('button', { name: 'Downgrade' }).click();
      const result = page.getByTestId('plan-change-result');
      await visible(result.getByText('Plan updated to Free!', { exact: true }));
      await visible(result.getByText('Scheduled backups changed from hourly to daily.'));
      await visible(
        result.getByText(
          'Retention changed from 90 days to 7 days: older backups are removed by the retention rule.',
        ),
      );
      await visible(page.getByTestId('current-plan-name').getByText('Free'));
    } finally {
      await context.close();
    }
  });
});
