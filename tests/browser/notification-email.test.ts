// Settings → Notifications: a new notification address waits for the link mailed to it; the link
// page confirms it once. And /audit-logs shows the details of the entries this flow writes.
import type { Page } from 'playwright-core';
import { uniqueEmail } from '../integration/helpers';
import {
  auditRow,
  newSession,
  registeredUser,
  signIn,
  visible,
  waitForMail,
  browserForFile,
} from './helpers';

const browser = browserForFile();

const CONFIRM_SUBJECT = 'Confirm your Coffer notification email';
const linkIn = (text: string) => {
  const m = /https?:\/\/\S+\/confirm-notification-email\/[A-Za-z0-9_-]+/.exec(text);
  if (!m) throw new Error('no confirmation link in the mail');
  return m[0];
};

async function openNotifications(page: Page) {
  await page.goto('/settings?tab=notifications');
  await visible(page.getByText('Notification Email', { exact: true }).first());
}

describe('notification email change', () => {
  it('waits for confirmation, can be cancelled, and applies once the mailed link is opened', async () => {
    const user = await registeredUser('notify');
    const next = uniqueEmail('ops');
    const { page, context } = await newSession(browser());
    try {
      await signIn(page, user);
      await openNotifications(page);
      await visible(page.getByText(`Notifications are sent to ${user.email}.`));

      // A malformed address is refused with the server's reason.
      const field = page.getByLabel('Notification Email');
      await field.fill('not-an-address');
      await page.getByRole('button', { name: 'Update' }).click();
      await visible(page.getByText('Please enter a valid email address'));

      await field.fill(next);
      await page.getByRole('button', { name: 'Update' }).click();
      const pending = page.getByTestId('pending-notification-email');
      await visible(pending.getByText(`Waiting for confirmation of ${next}.`, { exact: false }));
      await visible(page.getByText(`Notifications are sent to ${user.email}.`));
      const first = linkIn((await waitForMail(next, (m) => m.subject === CONFIRM_SUBJECT)).text);

      // Cancelling drops the pending address; its link no longer works.
      await pending.getByRole('button', { name: 'Cancel change' }).click();
      await visible(page.getByText(`Notifications keep going to ${user.email}.`));
      await page.getByTestId('pending-notification-email').waitFor({ state: 'detached' });

      await page.goto(new URL(first).pathname);
      await visible(page.getByText('This confirmation link is not valid', { exact: false }));

      // Ask again (after the flood guard's few seconds), then open the new link.
      await openNotifications(page);
      await field.fill(next);
      const until = Date.now() + 20_000;
      for (;;) {
        await page.getByRole('button', { name: 'Update' }).click();
        if (await page.getByTestId('pending-notification-email').isVisible()) break;
        if (Date.now() > until) throw new Error('the change was never accepted');
        await page.waitForTimeout(1000);
      }
      const second = await waitForMail(
        next,
        (m) => m.subject === CONFIRM_SUBJECT && linkIn(m.text) !== first,
      );
      await page.goto(new URL(linkIn(second.text)).pathname);
      await visible(page.getByText(`Notifications will now be sent to ${next}.`));
      await page.getByRole('link', { name: 'Open notification settings' }).click();
      await visible(page.getByText(`Notifications are sent to ${next}.`));
      expect(await page.getByTestId('pending-notification-email').count()).toBe(0);

      // The audit page shows what changed, not '—'.
      const row = await auditRow(page, 'NOTIFICATION_EMAIL_CHANGED');
      expect(await row.getByTestId('audit-details').innerText()).toBe(`account email → ${next}`);
      const requested = await auditRow(page, 'NOTIFICATION_EMAIL_CHANGE_REQUESTED');
      expect(await requested.getByTestId('audit-details').innerText()).toBe(
        `${next} (waiting for confirmation)`,
      );
    } finally {
      await context.close();
    }
  });
});
