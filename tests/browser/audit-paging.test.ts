// Issue 22 in the browser: a long audit log pages by cursor. Next shows the entries older than
// the last one on screen, even when newer entries were written meanwhile (page by page they would
// shift onto the next page and show twice); Previous goes back. The entries are those the audit
// service would have written, straight into its database.
import type { Page } from 'playwright-core';
import { browserForFile, newSession, registeredUser, signIn, stackMongoForFile, visible } from './helpers';
import { seedAuditEntries } from '../integration/audit-seed';
import { eventually } from '../integration/helpers';

jest.setTimeout(300_000);

const browser = browserForFile();
const mongo = stackMongoForFile();

/** `entry N` for each N from `from` down to `to`: the rows a page should show, newest first. */
const entries = (from: number, to: number) =>
  Array.from({ length: from - to + 1 }, (_, i) => `entry ${from - i}`);

/** Waits until the table shows exactly these entries and the pager reads `label`. */
async function shows(page: Page, expected: string[], label: string) {
  await eventually(
    async () => {
      expect(await page.getByTestId('audit-details').allInnerTexts()).toEqual(expected);
      expect(await page.getByText(/^Page \d+ of \d+$/).innerText()).toBe(label);
    },
    60_000,
    300,
  );
}

it('shows older entries on Next, none twice when newer ones arrive meanwhile, and goes back on Previous', async () => {
  const user = await registeredUser('audit-paging');
  await seedAuditEntries(mongo(), user.id, 45); // entry 0 (oldest) .. entry 44
  const { page, errors } = await newSession(browser());
  try {
    await signIn(page, user);
    await page.goto('/audit-logs');
    await shows(page, entries(44, 25), 'Page 1 of 3');

    // Five newer entries arrive while the user reads page 1.
    await seedAuditEntries(mongo(), user.id, 5, 1000);
    const next = page.getByRole('button', { name: 'Next', exact: true });
    await next.click();
    await shows(page, entries(24, 5), 'Page 2 of 3');
    await next.click();
    await shows(page, entries(4, 0), 'Page 3 of 3');
    await visible(page.getByText('entry 0', { exact: true }));
    expect(await next.isDisabled()).toBe(true);

    await page.getByRole('button', { name: 'Previous', exact: true }).click();
    await shows(page, entries(24, 5), 'Page 2 of 3');
    await page.getByRole('button', { name: 'Previous', exact: true }).click();
    // Back on the first page, the newest entries, those written meanwhile too.
    await shows(page, [...entries(1004, 1000), ...entries(44, 30)], 'Page 1 of 3');
    expect(errors).toEqual([]);
  } finally {
    await page.context().close();
  }
});
