// Live restore progress on the dashboard (product §4 "Restore events"), through the real realtime path:
// a progress message on NATS → gateway → Socket.IO → the browser.
import type { Browser } from 'playwright-core';
import {
  connectEventBus,
  createLogger,
  PROGRESS_SUBJECTS,
  type EventBus,
  type RestoreProgressMessage,
} from '@coffer/common';
import { launch, newSession, registeredUser, signIn, visible } from './helpers';

let browser: Browser;
let bus: EventBus;
beforeAll(async () => {
  browser = await launch();
  bus = await connectEventBus({
    url: process.env.COFFER_NATS_URL!,
    name: 'dashboard-live-test',
    log: createLogger('dashboard-live-test', 'silent'),
    streams: [],
  });
});
afterAll(async () => {
  await bus?.close();
  await browser?.close();
});

describe('dashboard live events', () => {
  it('shows a running restore with its progress and clears it 5 s after it completes', async () => {
    const user = await registeredUser('live');
    const { page, context } = await newSession(browser);
    try {
      await signIn(page, user);
      await visible(page.getByText('No backups found. Trigger a backup to protect your data.'));
      const restoreId = 'c'.repeat(24);
      const publish = (status: RestoreProgressMessage['status'], current: number) =>
        bus.publishLive(PROGRESS_SUBJECTS.restore, {
          userId: user.id,
          restoreId,
          status,
          progress: {
            current,
            total: 80_000,
            percentage: (current / 80_000) * 100,
            collection: 'customers',
          },
        });

      // The socket connects just after sign-in: repeat the (idempotent) report until it shows.
      const banner = page.getByTestId('active-restore');
      const until = Date.now() + 15_000;
      while (!(await banner.count())) {
        if (Date.now() > until) throw new Error('restore progress never reached the dashboard');
        publish('in-progress', 52_000);
        await page.waitForTimeout(500);
      }
      await visible(banner.getByText('customers · 52K / 80K documents'));
      await visible(banner.getByText('65.0%'));
      await visible(banner.getByText('In Progress'));

      publish('completed', 80_000);
      await visible(banner.getByText('100.0%'));
      await visible(banner.getByText('Completed'));
      // Kept for 5 s after completion, then cleared.
      await page.waitForTimeout(3_000);
      expect(await banner.count()).toBe(1);
      await banner.waitFor({ state: 'detached', timeout: 6_000 });
    } finally {
      await context.close();
    }
  });
});
