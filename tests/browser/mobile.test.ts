// Phones (issue 10): at 375 px every signed-in screen fits the viewport horizontally. Tables turn
// into stacked rows, tab lists scroll sideways, header buttons wrap. Screenshots go to /tmp.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { MongoClient } from 'mongodb';
import type { Browser, Page } from 'playwright-core';
import {
  api,
  auditRow,
  launch,
  newSession,
  registeredUser,
  signIn,
  visible,
  type RegisteredUser,
} from './helpers';

const WIDTH = 375;
const HEIGHT = 812;
const SHOTS = '/tmp/coffer-mobile';

let browser: Browser;
let mongo: MongoClient;
beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  browser = await launch();
  mongo = await MongoClient.connect(process.env.COFFER_MONGO_URL!);
});
afterAll(async () => {
  await mongo?.close();
  await browser?.close();
});

/**
 * Rows the orchestrator would have written after a real backup, restore and agent report: enough
 * for the dashboard tables and Settings → Databases to show data (no agent has to run).
 */
async function seed(user: RegisteredUser) {
  const db = mongo.db('coffer_orchestrator');
  const now = Date.now();
  const job = (minutesAgo: number) => ({
    userId: user.id,
    databaseName: 'customer-orders-production',
    agentId: crypto.randomBytes(12).toString('hex'),
    createdAt: new Date(now - minutesAgo * 60_000),
    commandId: crypto.randomUUID(),
    commandSentAt: new Date(now - minutesAgo * 60_000),
    startedAt: new Date(now - minutesAgo * 60_000),
    completedAt: new Date(now - (minutesAgo - 1) * 60_000),
    absentSince: null,
  });
  const backups = [
    { ...job(30), status: 'completed', type: 'manual', size: 48_213_337 },
    {
      ...job(90),
      status: 'failed',
      type: 'auto',
      size: 0,
      error: 'connection refused by the database server',
    },
  ].map((b) => ({
    ...b,
    keyFingerprint: null,
    scheduleSlot: `manual:${crypto.randomUUID()}`,
    deletingSince: null,
  }));
  const inserted = await db.collection('backups').insertMany(backups);
  await db.collection('restores').insertOne({
    ...job(20),
    status: 'completed',
    backupId: String(inserted.insertedIds[0]),
    documentsRestored: 120_000,
    documentsFailed: 0,
    error: null,
  });
  await db.collection('databases').insertOne({
    userId: user.id,
    name: 'customer-orders-production',
    enabled: true,
    createdAt: new Date(now - 3_600_000),
    lastScheduledSlot: null,
  });
}

interface Overflow {
  tag: string;
  text: string;
  right: number;
}

/** Visible elements reaching past the right edge (outside deliberate horizontal scrollers). */
async function overflows(
  page: Page,
): Promise<{ scrollWidth: number; innerWidth: number; items: Overflow[] }> {
  return page.evaluate(() => {
    const scrollsX = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const ox = getComputedStyle(p).overflowX;
        if (ox === 'auto' || ox === 'scroll') return true;
      }
      return false;
    };
    const items: { tag: string; text: string; right: number }[] = [];
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.display === 'none') continue;
      if (r.right <= window.innerWidth + 1 || scrollsX(el)) continue;
      items.push({
        tag: `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.getAttribute('data-testid') ? `[${el.getAttribute('data-testid')}]` : ''}`,
        text: (el.textContent ?? '').trim().slice(0, 60),
        right: Math.round(r.right),
      });
    }
    // Stacked tables must fit even inside their (desktop) scroll area: report what is wider.
    for (const table of Array.from(document.querySelectorAll('table'))) {
      for (const cell of Array.from(table.querySelectorAll('td'))) {
        if (cell.getClientRects().length && cell.scrollWidth > cell.clientWidth + 1)
          items.push({
            tag: 'td (content wider than the cell)',
            text: (cell.textContent ?? '').trim().slice(0, 60),
            right: Math.round(cell.getBoundingClientRect().left + cell.scrollWidth),
          });
      }
      const box = table.parentElement!.getBoundingClientRect();
      if (table.parentElement!.scrollWidth <= table.parentElement!.clientWidth + 1) continue;
      for (const el of Array.from(table.querySelectorAll('*'))) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > box.right + 1)
          items.push({
            tag: `table>${el.tagName.toLowerCase()}`,
            text: (el.textContent ?? '').trim().slice(0, 60),
            right: Math.round(r.right),
          });
      }
    }
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      items,
    };
  });
}

async function expectFits(page: Page, name: string) {
  await page.waitForTimeout(300); // let layout settle (fonts, late data)
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  const result = await overflows(page);
  expect({ name, ...result }).toEqual({ name, scrollWidth: result.innerWidth, innerWidth: WIDTH, items: [] });
}

/** The tab's label is whole, and inside the viewport once the list is scrolled to it. */
async function expectTabReachable(page: Page, name: string) {
  const tab = page.getByRole('tab', { name, exact: true });
  await tab.scrollIntoViewIfNeeded();
  const box = await tab.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right, clipped: el.scrollWidth > el.clientWidth + 1 };
  });
  expect({ name, ...box, inside: box.left >= -1 && box.right <= WIDTH + 1 }).toEqual({
    name,
    ...box,
    clipped: false,
    inside: true,
  });
}

describe('phones (375 px)', () => {
  it('fits every signed-in screen in the viewport', async () => {
    const user = await registeredUser('mobile');
    await seed(user);
    const { page, context } = await newSession(browser, { width: WIDTH, height: HEIGHT });
    try {
      await signIn(page, user);

      // Dashboard: header controls, stacked Recent Backups rows with every field shown.
      await visible(page.getByRole('button', { name: 'Trigger Backup' }));
      const rows = page.getByTestId('backup-row');
      await visible(rows);
      expect(await rows.count()).toBe(2);
      for (const label of ['Download backup', 'Restore backup', 'Delete backup']) {
        expect(await rows.first().getByRole('button', { name: label }).isVisible()).toBe(true);
      }
      await visible(rows.first().getByText(/ MB$/));
      await visible(rows.first().getByText('Completed'));
      for (const name of ['Backups', 'Restore History']) await expectTabReachable(page, name);
      await expectFits(page, 'dashboard-backups');

      await page.getByRole('tab', { name: 'Restore History' }).click();
      await visible(page.getByTestId('restore-row'));
      await visible(page.getByRole('button', { name: 'Refresh' }));
      await expectFits(page, 'dashboard-restores');

      // Settings: every tab label whole and reachable, every tab fitting.
      await page.goto('/settings');
      const settingsTabs = ['General', 'Agents', 'Databases', 'Security', 'Notifications'];
      for (const name of settingsTabs) await expectTabReachable(page, name);
      for (const name of settingsTabs) {
        await page.getByRole('tab', { name, exact: true }).click();
        await page.waitForURL(
          (url) => name === 'General' || url.search.includes(`tab=${name.toLowerCase()}`),
        );
        if (name === 'Databases') await visible(page.getByTestId('database-row'));
        if (name === 'General') await visible(page.getByRole('button', { name: 'Save Changes' }));
        if (name === 'Security') await visible(page.getByRole('button', { name: 'Regenerate API Key' }));
        if (name === 'Notifications') await visible(page.getByRole('button', { name: 'Save All Changes' }));
        await expectFits(page, `settings-${name.toLowerCase()}`);
      }

      // Profile tabs.
      await page.goto('/profile');
      const profileTabs = ['Account', 'Security', 'Billing & Plan'];
      for (const name of profileTabs) await expectTabReachable(page, name);
      for (const name of profileTabs) {
        await page.getByRole('tab', { name, exact: true }).click();
        if (name === 'Account') await visible(page.getByRole('button', { name: 'Save Changes' }));
        if (name === 'Security') await visible(page.getByRole('button', { name: 'Update Password' }));
        if (name === 'Billing & Plan') await visible(page.getByText('Available Plans'));
        await expectFits(page, `profile-${name.split(' ')[0]!.toLowerCase()}`);
      }

      // Audit logs, with one of the longest action names (issue 21, walk 13: they were cut off).
      const notifications = await api('PUT', '/api/settings', {
        token: user.token,
        body: { notifications: { backupSuccess: false } },
      });
      expect(notifications.status).toBe(200);
      await auditRow(page, 'NOTIFICATIONS_UPDATED');
      await visible(page.getByRole('button', { name: 'Next' }));
      await expectFits(page, 'audit-logs');
      const badges = await page.getByTestId('audit-action').evaluateAll((els) =>
        els.map((el) => {
          const r = el.getBoundingClientRect();
          return {
            text: el.textContent,
            clipped: el.scrollWidth > el.clientWidth + 1 || r.right > window.innerWidth,
          };
        }),
      );
      expect(badges.filter((b) => b.clipped)).toEqual([]);
      expect(badges.map((b) => b.text)).toContain('NOTIFICATIONS_UPDATED');

      // Desktop keeps the table layout: column headers shown, no row labels.
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto('/dashboard');
      await visible(page.getByRole('columnheader', { name: 'Size' }));
      expect(
        await page
          .getByTestId('backup-row')
          .first()
          .locator('td')
          .first()
          .evaluate((td) => getComputedStyle(td).display),
      ).toBe('table-cell');
      await page.screenshot({ path: `${SHOTS}/desktop-dashboard.png` });
      await page.goto('/settings?tab=databases');
      await visible(page.getByRole('columnheader', { name: 'Status' }));
      await page.screenshot({ path: `${SHOTS}/desktop-settings-databases.png` });
    } finally {
      await context.close();
    }
  });
});
