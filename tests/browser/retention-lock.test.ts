// Settings → General → Retention lock, on a desktop and a phone: the switch turns the lock on at
// once, turning it off shows when that takes effect with a way to keep it on, and the card fits.
import { api, newSession, registeredUser, signIn, visible, browserForFile } from './helpers';
import { eventually } from '../integration/helpers';

const browser = browserForFile();

describe.each([
  { width: 1280, height: 900 },
  { width: 375, height: 812 },
])('retention lock at $width px', ({ width, height }) => {
  it('turns on at once, and a turn-off waits with a way to cancel it', async () => {
    const user = await registeredUser(`lock${width}`);
    const lockOf = async () => (await api('GET', '/api/settings', { token: user.token })).body.retentionLock;
    const { page, context, errors } = await newSession(browser(), { width, height });
    try {
      await signIn(page, user);
      await page.goto('/settings');
      const card = page.getByTestId('retention-lock');
      await visible(card.getByText('Retention lock', { exact: true }));
      await visible(card.getByText(/no backup can be deleted before its\s+retention date/));
      await visible(card.getByText(/kept until their date and then removed/));
      const toggle = card.getByRole('checkbox', { name: 'Lock backups until their retention date' });
      expect(await toggle.isChecked()).toBe(false);

      await card.getByText('Lock backups until their retention date').click();
      await eventually(async () => expect((await lockOf()).enabled).toBe(true));
      await eventually(async () => expect(await toggle.isChecked()).toBe(true));
      await visible(card.getByText(/Turning it off takes effect 1 week after you ask/));

      await card.getByText('Lock backups until their retention date').click();
      const pending = card.getByTestId('retention-lock-pending');
      await visible(pending.getByText(/^The lock turns off on \w{3} \d{1,2}, \d{4}/));
      const lock = await lockOf();
      expect(lock.enabled).toBe(true);
      expect(lock.offAt).toBeDefined();
      // Still on while the turn-off waits.
      expect(await toggle.isChecked()).toBe(true);

      const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
      expect(fits).toBe(true);
      await page.screenshot({ path: `/tmp/coffer-retention-lock-${width}.png`, fullPage: true });

      await pending.getByRole('button', { name: 'Keep the lock on' }).click();
      await eventually(async () => expect(await pending.count()).toBe(0));
      expect(await lockOf()).toEqual({ enabled: true, offDelaySeconds: 7 * 24 * 3600 });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
