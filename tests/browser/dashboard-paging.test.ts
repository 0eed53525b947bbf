// Issue 22 in the browser: a user with more backups (restores) than the list's plain call answers
// (its newest 500, 200) sees the older ones as the list scrolls to its end, a page at a time. The
// rows are those the orchestrator would have written after real runs, straight into its database.
import crypto from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { LIST_NEWEST } from '@coffer/contracts';
import {
  newSession,
  registeredUser,
  signIn,
  visible,
  browserForFile,
  stackMongoForFile,
  type RegisteredUser,
} from './helpers';
import { eventually } from '../integration/helpers';

jest.setTimeout(600_000);

const OLDER = 70; // more than one page (50) beyond the newest 500

const browser = browserForFile();
const mongo = stackMongoForFile();

/** Scrolls the page to its end until `rows` counts `total` and no "load more" is left. */
async function scrollUntilAll(page: Page, rows: Locator, total: number) {
  const more = page.getByTestId('load-more');
  await eventually(
    async () => {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      // A page that failed (a busy shared stack) is asked for again, as a user would.
      if (await more.getByText('could not be loaded').count()) await more.getByRole('button').click();
      expect(await rows.count()).toBe(total);
      expect(await more.count()).toBe(0);
    },
    // generous: rendering 500 rows and more takes a loaded machine a while
    180_000,
    500,
  );
}

/**
 * `count` rows of the user's in the orchestrator's `collection`, a minute apart up to now, each a
 * run that completed: `fields` adds what the kind of row holds beside that.
 */
async function seedCompletedRuns(
  collection: 'backups' | 'restores',
  userId: string,
  count: number,
  fields: (at: Date, i: number) => Record<string, unknown>,
) {
  const t0 = Date.now() - count * 60_000;
  await mongo()
    .db('coffer_orchestrator')
    .collection(collection)
    .insertMany(
      Array.from({ length: count }, (_, i) => {
        const at = new Date(t0 + i * 60_000);
        return {
          userId,
          databaseName: 'shop',
          agentId: crypto.randomBytes(12).toString('hex'),
          createdAt: at,
          commandId: crypto.randomUUID(),
          commandSentAt: at,
          startedAt: at,
          completedAt: at,
          absentSince: null,
          status: 'completed',
          error: null,
          ...fields(at, i),
        };
      }),
    );
}

/** Signs `user` in, opens `tab` if given, and scrolls its list of `rowTestId` rows until all `total` show. */
async function scrollsToAll(user: RegisteredUser, rowTestId: string, total: number, tab?: string) {
  const { page, errors } = await newSession(browser());
  try {
    await signIn(page, user);
    if (tab) await page.getByRole('tab', { name: tab }).click();
    const rows = page.getByTestId(rowTestId);
    await eventually(async () => expect(await rows.count()).toBeGreaterThanOrEqual(total - OLDER));
    // Scrolling to the end loads the next pages (the button stands for the same, and goes once
    // the last page was short): every row once, the newest ones, then two pages (50, 20).
    await scrollUntilAll(page, rows, total);
    await visible(rows.last());
    expect(errors).toEqual([]);
  } finally {
    await page.context().close();
  }
}

it('loads older backups as the list scrolls to its end, until there are none', async () => {
  const user = await registeredUser('paging');
  const total = LIST_NEWEST.backups + OLDER;
  await seedCompletedRuns('backups', user.id, total, (_at, i) => ({
    type: 'auto',
    size: 1000 + i,
    keyFingerprint: null,
    scheduleSlot: `manual:${crypto.randomUUID()}`,
    deletingSince: null,
    lockedUntil: null,
  }));
  await scrollsToAll(user, 'backup-row', total);
});

it('loads older restores in the restore history the same way', async () => {
  const user = await registeredUser('paging');
  const total = LIST_NEWEST.restores + OLDER;
  await seedCompletedRuns('restores', user.id, total, (at, i) => ({
    backupId: crypto.randomBytes(12).toString('hex'),
    backupTimestamp: at,
    documentsRestored: i,
    documentsFailed: 0,
  }));
  await scrollsToAll(user, 'restore-row', total, 'Restore History');
});
