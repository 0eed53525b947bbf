// The open dashboard follows the real `coffer-agent` (issue 21, walks 5 and 10), over the realtime
// connection and without a reload: a database added with `coffer-agent db add` reaches the Trigger
// Backup selector, a backup the page did not start shows its row while it runs, System Status
// follows the agent going and coming back, and Check for Updates answers on the agent's card.
// Nothing is injected: every change starts at the agent or the API, as a customer's would.
import type { Locator, Page } from 'playwright-core';
import { seedDatabase } from '../../agent/src/testing/database-fixtures';
import { eventually, newUser, type TestUser } from '../integration/helpers';
import {
  agentCli,
  customerDbForFile,
  setupAgent,
  triggerBackup,
  uniqueName,
  waitAgentActive,
  waitBackup,
  type Agent,
} from '../integration/pipeline/harness';
import { api, auditRow, browserForFile, newSession, signIn, visible } from './helpers';

jest.setTimeout(180_000);

const LABEL = 'orders-db';
const DB = uniqueName('orders_');

const browser = browserForFile();
const customer = customerDbForFile();
let owner: TestUser;
let agent: Agent;

beforeAll(async () => {
  owner = await newUser('follow-web');
  await seedDatabase(customer().client, DB, { events: 2_000 });
  agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }], { start: false });
  await startAgent();
}, 180_000);

declare global {
  interface Window {
    __noReload?: string;
  }
}

/** The dashboard's System Status poll (product §9: refreshed every 30 s). */
const STATUS_REFRESH_MS = 30_000;

const startAgent = () =>
  // The agent notices `db add` on its next look at its config (5 s by default).
  agent.start({ env: { COFFER_AGENT_CONFIG_POLL_MS: '500' } });

/**
 * Waits for `locator` while the page's (faked, paused) clock moves only in small steps: over the
 * whole wait it advances a few seconds, never the 30 s the status poll needs, so what shows came
 * from the realtime news. The steps let the page's short timers run (the store's batched
 * notifications wait for an animation frame).
 */
async function shownWithoutPoll(page: Page, locator: Locator, realMs = 60_000): Promise<void> {
  const until = Date.now() + realMs;
  let advancedMs = 0;
  while (!(await locator.count())) {
    if (Date.now() > until) throw new Error(`not shown; the page's clock advanced ${advancedMs} ms`);
    await page.clock.runFor(20);
    advancedMs += 20;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(advancedMs).toBeLessThan(STATUS_REFRESH_MS);
}

/** Marks the document: a reload (or navigation) would lose the mark. */
const markDocument = (page: Page) => page.evaluate(() => (window.__noReload = 'same-document'));
const stillSameDocument = async (page: Page) =>
  expect(await page.evaluate(() => window.__noReload)).toBe('same-document');

describe('the open dashboard follows the agent', () => {
  it('shows a database added with `coffer-agent db add` in the Trigger Backup selector', async () => {
    const { page, context, errors } = await newSession(browser());
    try {
      await signIn(page, owner);
      const select = page.getByLabel('Database', { exact: true });
      await select.locator(`option[value="${LABEL}"]`).waitFor({ state: 'attached' });
      await markDocument(page);

      // The dashboard has a database, so it does not poll the list: only the push can bring it.
      const added = await agentCli(
        ['db', 'add', 'invoices-db', '--uri', '-'],
        agent.config,
        `${customer().uri(DB)}\n`,
      );
      expect(added.code).toBe(0);
      await select.locator('option[value="invoices-db"]').waitFor({ state: 'attached', timeout: 60_000 });
      await stillSameDocument(page);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows the progress row of a backup it did not start while it runs (a scheduled one)', async () => {
    const { page, context, errors } = await newSession(browser());
    try {
      await signIn(page, owner);
      await visible(page.getByText('No backups found. Trigger a backup to protect your data.'));
      await markDocument(page);

      // Started elsewhere (as the scheduler does), with the customer's database frozen so that the
      // backup is still running when its row must show.
      customer().pause();
      let backupId: string;
      try {
        backupId = (await triggerBackup(owner.token, LABEL))._id;
        const row = page
          .locator(`[data-testid="backup-row"][data-status="in-progress"]`)
          .filter({ hasText: LABEL });
        await visible(row, 60_000);
        await visible(row.getByTestId('progress-block'));
      } finally {
        customer().resume();
      }
      expect((await waitBackup(owner.token, backupId, 120_000, agent)).status).toBe('completed');
      const done = page
        .locator('[data-testid="backup-row"][data-status="completed"]')
        .filter({ hasText: LABEL });
      await visible(done, 30_000);
      await stillSameDocument(page);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('System Status follows the agent as it stops and comes back, with the 30 s poll held still', async () => {
    const { page, context, errors } = await newSession(browser());
    try {
      await page.clock.install();
      await signIn(page, owner);
      await visible(page.locator('[aria-label="active"]'));
      await markDocument(page);
      await page.clock.pauseAt(Date.now() + 1_000);

      await agent.stop();
      await shownWithoutPoll(page, page.locator('[aria-label="offline"]'));
      expect(await page.locator('[aria-label="active"]').count()).toBe(0);

      await startAgent();
      await shownWithoutPoll(page, page.locator('[aria-label="active"]'));
      await stillSameDocument(page);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('Check for Updates answers on the agent card', () => {
  it('shows why the update failed, and the audit log has it', async () => {
    const { page, context, errors } = await newSession(browser());
    try {
      if (agent.child?.exitCode !== null || agent.child?.signalCode !== null) await startAgent();
      const { id } = await waitAgentActive(owner.token, agent.name);
      await signIn(page, owner);
      await page.goto(`/settings?tab=agents&agent=${id}`);
      const detail = page.getByTestId('agent-detail');
      await visible(detail.getByText(agent.name));
      await detail.getByRole('button', { name: 'Check for Updates' }).click();

      // This agent runs as a Node.js script (a development build): it refuses, and says why.
      const result = detail.getByTestId('agent-update-result');
      try {
        await visible(result.getByText(/^Update failed: this agent runs as a Node\.js script/), 60_000);
      } catch (err) {
        throw new Error(
          `${(err as Error).message}\ncard:\n${await detail.innerText()}\nagent:\n${agent.output.slice(-3000)}`,
        );
      }
      expect(await result.innerText()).toMatch(/Version \d+\.\d+\.\d+ keeps running\./);

      await eventually(async () => {
        const res = await api('GET', '/api/user/audit-logs?action=AGENT_UPDATE_FAILED', {
          token: owner.token,
        });
        expect(JSON.stringify(res.body)).toMatch(/runs as a Node\.js script/);
      }, 60_000);
      await auditRow(page, 'AGENT_UPDATE_FAILED');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
