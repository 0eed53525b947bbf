// A backup triggered from the dashboard and carried out by the real `coffer-agent` (issue 9): the
// browser sees the new row, the agent's own live progress (agent → gateway → NATS → Socket.IO →
// browser; nothing is injected here) and finally 'Completed' with a size, all without a reload.
import { formatBytes, formatCount } from '../../web/src/lib/format';
import { newUser, type TestUser } from '../integration/helpers';
import { seedDatabase } from '../../agent/src/testing/database-fixtures';
import { customerDbForFile, setupAgent, uniqueName, type Agent } from '../integration/pipeline/harness';
import { api, browserForFile, newSession, signIn, visible } from './helpers';

jest.setTimeout(120_000);

const LABEL = 'shop-db';
const DB = uniqueName('shop_');
// About 10 MB of incompressible payload, seeded in about 4 s. The agent counts documents as the
// archive streams by and reports at most once a second; FerretDB serves `events` in a second or
// two, so a reading part-way may show only a few documents (0.0 %): the test asks for some
// documents, not all, rather than for a percentage above zero.
const EVENTS = 48_000;

const browser = browserForFile();
const customer = customerDbForFile();
let owner: TestUser;
let agent: Agent;

beforeAll(async () => {
  owner = await newUser('agent-web');
  await seedDatabase(customer().client, DB, { events: EVENTS });
  // The scheduler leaves a new database's first backup to the user: nothing to clear away first.
  agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }]);
}, 180_000);

/** What the page showed in backup rows' progress blocks, recorded in the page as it changes. */
declare global {
  interface Window {
    __progressSeen?: string[];
    __noReload?: string;
  }
}

describe('dashboard backup with a real agent', () => {
  it('triggers a backup, shows the agent’s live progress, then Completed with a size', async () => {
    const { page, context, errors } = await newSession(browser());
    const agentLog = () =>
      `\nagent output:\n${agent.output.slice(-3000)}\nbrowser errors:\n${errors.join('\n')}`;
    try {
      await signIn(page, owner);
      await visible(page.getByText('No backups found. Trigger a backup to protect your data.'));

      // The agent's database is listed in the selector: pick it.
      const select = page.getByLabel('Database', { exact: true });
      await select.locator(`option[value="${LABEL}"]`).waitFor({ state: 'attached' });
      await select.selectOption(LABEL);
      expect(await select.inputValue()).toBe(LABEL);

      // Record every text a progress block of the table shows (the agent reports once a second;
      // a Playwright poll could miss a short-lived state, a MutationObserver does not), and mark
      // the document so a reload would be noticed.
      await page.evaluate(() => {
        window.__noReload = 'same-document';
        const seen: string[] = (window.__progressSeen = []);
        const record = () => {
          document
            .querySelectorAll('[data-testid="backup-row"] [data-testid="progress-block"]')
            .forEach((el) => {
              const text = (el.textContent ?? '').trim();
              if (text && seen[seen.length - 1] !== text) seen.push(text);
            });
        };
        new MutationObserver(record).observe(document.body, {
          subtree: true,
          childList: true,
          characterData: true,
        });
      });

      const started = Date.now();
      await page.getByRole('button', { name: 'Trigger Backup', exact: true }).click();

      // The new row appears at once, running, with its progress block (before completion).
      const row = page.getByTestId('backup-row').filter({ hasText: LABEL });
      await visible(row, 15_000);
      expect(await row.count()).toBe(1);
      const progressBlock = row.getByTestId('progress-block');
      await visible(progressBlock, 15_000);
      expect(['pending', 'in-progress']).toContain(await row.getAttribute('data-status'));

      // Live progress from the agent: some documents counted, not all of them, under 100 %.
      try {
        await page.waitForFunction(
          () =>
            (window.__progressSeen ?? []).some((t) => {
              const count = /([\d.]+[KM]?) \/ (?:about )?[\d.]+[KM]? documents/.exec(t);
              const percent = /(\d+(?:\.\d)?)%/.exec(t);
              return count !== null && count[1] !== '0' && percent !== null && Number(percent[1]) < 100;
            }),
          undefined,
          { timeout: 45_000 },
        );
      } catch {
        const seen = await page.evaluate(() => window.__progressSeen ?? []);
        throw new Error(
          `no intermediate progress shown; progress blocks showed ${JSON.stringify(seen)}${agentLog()}`,
        );
      }
      const midway = Date.now();

      // Completion, live: the badge turns 'Completed', the progress block goes and the size shows.
      const badge = row.locator('[data-status="completed"]').filter({ hasText: 'Completed' });
      try {
        await visible(badge, 60_000);
        await progressBlock.waitFor({ state: 'detached', timeout: 15_000 });
      } catch (err) {
        throw new Error(`backup did not complete in the browser: ${(err as Error).message}${agentLog()}`);
      }
      const finished = Date.now();
      await expect(row.getAttribute('data-status')).resolves.toBe('completed');

      // The backup, through the API: completed, with a size; the row shows that very size.
      const list = await api('GET', '/api/backups', { token: owner.token });
      expect(list.status).toBe(200);
      const mine = (list.body as any[]).filter((b) => b.databaseName === LABEL);
      expect(mine).toHaveLength(1);
      const backup = mine[0];
      expect(backup.status).toBe('completed');
      expect(backup.size).toBeGreaterThan(0);
      const sizeCell = row.getByRole('cell').nth(2);
      await visible(sizeCell.getByText(formatBytes(backup.size), { exact: true }), 15_000);
      expect(await sizeCell.textContent()).toMatch(/^\d+(\.\d+)? (KB|MB|GB)$/);
      await visible(page.getByRole('button', { name: 'Trigger Backup', exact: true }), 30_000);

      // What the progress blocks showed, in order: nothing but the agent's reports.
      const seen = await page.evaluate(() => window.__progressSeen ?? []);
      const percentages = seen.flatMap((t) => {
        const m = /(\d+(?:\.\d)?)%/.exec(t);
        return m ? [Number(m[1])] : [];
      });
      expect(percentages.some((p) => p > 0 && p < 100)).toBe(true);
      // The total is the customer's real document count (events + 45 in the other collections).
      const total = `/ ${formatCount(EVENTS + 45)} documents`;
      expect(seen.some((t) => t.includes(total))).toBe(true);
      for (let i = 1; i < percentages.length; i++)
        expect(percentages[i]).toBeGreaterThanOrEqual(percentages[i - 1]!);
      // No reload happened: the marker set before the trigger is still there.
      expect(await page.evaluate(() => window.__noReload)).toBe('same-document');
      expect(errors).toEqual([]);
      console.log(
        `agent backup: progress after ${midway - started} ms, completed after ${finished - started} ms; ` +
          `size ${backup.size} B; progress blocks showed ${JSON.stringify(seen)}`,
      );
    } finally {
      await context.close();
    }
  });
});
