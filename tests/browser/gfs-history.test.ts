// Issue 20 in the browser, on a desktop and a phone: Settings → General offers GFS retention with
// the server's preview of which backups it would delete, and the dashboard charts the selected
// database's backups (size, duration, failures marked). The backups are rows the orchestrator would
// have written after real runs (no agent has to run): the preview and the chart read them as such.
import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import {
  api,
  newSession,
  registeredUser,
  signIn,
  visible,
  type RegisteredUser,
  browserForFile,
  stackMongoForFile,
} from './helpers';
import { eventually } from '../integration/helpers';

jest.setTimeout(300_000);

const HOUR = 3_600_000;
const DB = 'shop';

const browser = browserForFile();
const mongo = stackMongoForFile();

/**
 * One backup a day for five days, the one of 3 days ago failed; retention 7 days, so the spec's
 * sweep leaves them all alone. Returns the backup ids, newest first.
 */
async function seed(user: RegisteredUser): Promise<string[]> {
  const saved = await api('PUT', '/api/settings', { token: user.token, body: { retention: 168 } });
  expect(saved.status).toBe(200);
  const db = mongo().db('coffer_orchestrator');
  const now = Date.now();
  const backup = (hoursAgo: number, seconds: number, size: number, failed = false) => {
    const start = new Date(now - hoursAgo * HOUR - seconds * 1000);
    return {
      userId: user.id,
      databaseName: DB,
      agentId: crypto.randomBytes(12).toString('hex'),
      createdAt: new Date(start.getTime() - 2000),
      commandId: crypto.randomUUID(),
      commandSentAt: start,
      startedAt: start,
      completedAt: new Date(now - hoursAgo * HOUR),
      absentSince: null,
      status: failed ? 'failed' : 'completed',
      error: failed ? 'connection refused by the database server' : null,
      type: 'auto',
      size: failed ? 0 : size,
      keyFingerprint: null,
      scheduleSlot: `manual:${crypto.randomUUID()}`,
      deletingSince: null,
      lockedUntil: null,
    };
  };
  const rows = [
    backup(0, 95, 52_000_000),
    backup(24, 80, 50_000_000),
    backup(48, 70, 47_000_000),
    backup(72, 12, 0, true),
    backup(96, 60, 41_000_000),
  ];
  const inserted = await db.collection('backups').insertMany(rows);
  await db.collection('databases').insertOne({
    userId: user.id,
    name: DB,
    enabled: true,
    createdAt: new Date(now - 200 * HOUR),
    lastScheduledSlot: null,
  });
  return rows.map((_, i) => String(inserted.insertedIds[i]));
}

const fits = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe.each([
  { width: 1280, height: 900 },
  { width: 375, height: 812 },
])('GFS retention and the history chart at $width px', ({ width, height }) => {
  it('previews which backups GFS would delete, then saves it', async () => {
    const user = await registeredUser(`gfs${width}`);
    const ids = await seed(user);
    const { page, context, errors } = await newSession(browser(), { width, height });
    try {
      await signIn(page, user);
      await page.goto('/settings');
      await page.getByTestId('retention-mode').selectOption('gfs');
      const fields = page.getByTestId('gfs-fields');
      await visible(fields);
      // The suggestion, within the Free plan: 7 daily, 4 weekly, no monthly.
      expect(await page.getByTestId('gfs-daily').inputValue()).toBe('7');
      expect(await page.getByTestId('gfs-monthly').inputValue()).toBe('0');
      await visible(fields.getByText('up to 7'));
      await visible(page.getByText('Keep Failed Backups For'));

      await page.getByTestId('gfs-daily').fill('2');
      await page.getByTestId('gfs-weekly').fill('0');
      await page.getByTestId('gfs-preview-button').click();
      const preview = page.getByTestId('gfs-preview');
      // Kept: today's and yesterday's (daily 2) and the recent failure; gone: 2 and 4 days ago.
      await visible(preview.getByText('2 of your 5 current backups would be deleted when you save:'));
      expect(await preview.getByTestId('gfs-preview-row').count()).toBe(2);
      await visible(
        preview
          .getByTestId('gfs-preview-row')
          .first()
          .getByText(/^shop · /),
      );
      // A preview deletes nothing.
      expect((await api('GET', '/api/backups', { token: user.token })).body).toHaveLength(5);

      // Changing a count drops the preview: it was for other numbers.
      await page.getByTestId('gfs-daily').fill('3');
      await eventually(async () => expect(await preview.count()).toBe(0));
      await page.getByTestId('gfs-daily').fill('2');

      expect(await fits(page)).toBe(true);
      await page.screenshot({ path: `/tmp/coffer-gfs-settings-${width}.png`, fullPage: true });

      await page.getByRole('button', { name: 'Save Changes' }).first().click();
      await visible(page.getByRole('button', { name: 'Saved!' }));
      const settings = (await api('GET', '/api/settings', { token: user.token })).body;
      expect(settings).toMatchObject({
        retentionMode: 'gfs',
        gfs: { hourly: 0, daily: 2, weekly: 0, monthly: 0, yearly: 0 },
        retention: 168,
      });
      // The sweep applies it (every minute on the shared stack): the two previewed go, the rest stays.
      await eventually(
        async () => {
          const left = (await api('GET', '/api/backups', { token: user.token })).body.map((b: any) => b._id);
          expect(left.sort()).toEqual([ids[0], ids[1], ids[3]].sort());
        },
        150_000,
        1000,
      );
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("charts the selected database's backups with the failure marked", async () => {
    const user = await registeredUser(`chart${width}`);
    await seed(user);
    const { page, context, errors } = await newSession(browser(), { width, height });
    try {
      await signIn(page, user);
      await page.goto('/dashboard');
      const card = page.getByTestId('backup-history');
      await visible(card.getByText(`Backup history: ${DB}`));
      await visible(card.getByTestId('backup-history-summary').getByText('4 completed, 1 failed'));
      const chart = card.getByTestId('backup-history-chart');
      await eventually(async () => expect(await chart.locator('.recharts-bar-rectangle').count()).toBe(4));
      expect(await chart.locator('.recharts-reference-line').count()).toBe(1);
      await page.screenshot({ path: `/tmp/coffer-history-chart-${width}.png`, fullPage: true });
      // Both axes carry their units: bytes on the left, time on the right.
      const labels = (await chart.locator('svg').first().textContent()) ?? '';
      expect(labels).toMatch(/\d+ MB/);
      expect(labels).toMatch(/\d+ s|\d+ min/);
      const box = (await chart.boundingBox())!;
      expect(box.width).toBeLessThanOrEqual(width);
      expect(box.height).toBeGreaterThan(150);
      expect(await fits(page)).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

it('brings the GFS suggestion within the plan when the plan arrives after GFS was chosen', async () => {
  const user = await registeredUser('gfslate');
  const { page, context, errors } = await newSession(browser());
  try {
    await signIn(page, user);
    // The plan's answer is held until GFS is chosen (a slow network, or a loaded server).
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/user/plan', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto('/settings');
    await page.getByTestId('retention-mode').selectOption('gfs');
    await visible(page.getByTestId('gfs-fields'));
    release();
    // The Free plan keeps no monthly backups: the suggestion's 12 comes down to 0.
    await eventually(async () => expect(await page.getByTestId('gfs-monthly').inputValue()).toBe('0'));
    expect(await page.getByTestId('gfs-daily').inputValue()).toBe('7');
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
});
