// A restore started from the dashboard and carried out by the real `coffer-agent` (issue 10): the
// backup's row shows the restore while it runs and how it ended, a toast says it completed, and
// Restore History names the backup restored (its timestamp) with the documents restored and failed,
// none of it cut off.
import type { Locator, Page } from 'playwright-core';
import { formatBackupDate } from '../../web/src/lib/format';
import { newUser, type TestUser } from '../integration/helpers';
import { seedDatabase } from '../../agent/src/testing/database-fixtures';
import {
  backupCompleted,
  customerDbForFile,
  setupAgent,
  uniqueName,
  waitRestore,
  type Agent,
} from '../integration/pipeline/harness';
import { api, browserForFile, newSession, signIn, toast, visible } from './helpers';

jest.setTimeout(150_000);

const LABEL = 'crm-db';
const DB = uniqueName('crm_');

const browser = browserForFile();
const customer = customerDbForFile();
let owner: TestUser;
let agent: Agent;
let backup: { _id: string; timestamp: string };

beforeAll(async () => {
  owner = await newUser('restore-web');
  await seedDatabase(customer().client, DB, { events: 2_000 });
  agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }]);
  backup = await backupCompleted(owner.token, LABEL, agent);
});

declare global {
  interface Window {
    __restoreSeen?: string[];
  }
}

/**
 * Restores the backup of LABEL from its row through the three-step confirmation; resolves with the
 * restore's line under that row once it shows.
 */
async function restoreFromRow(page: Page): Promise<Locator> {
  await page
    .getByTestId('backup-row')
    .filter({ hasText: LABEL })
    .getByRole('button', { name: 'Restore backup' })
    .click();
  const dialog = page.getByTestId('restore-dialog');
  await dialog.getByRole('button', { name: 'I understand, continue' }).click();
  await dialog.getByRole('button', { name: 'Continue with restore' }).click();
  await dialog.getByPlaceholder(LABEL).fill(LABEL);
  await dialog.getByRole('button', { name: 'Restore database' }).click();
  await dialog.waitFor({ state: 'detached' });
  const restoreRow = page.getByTestId('backup-restore');
  await visible(restoreRow);
  return restoreRow;
}

/** The text of the toast titled `title`, read as soon as it shows (it goes after 5 s). */
async function toastText(page: Page, title: string, timeoutMs: number, errors: string[]): Promise<string> {
  const shown = toast(page, title);
  try {
    await visible(shown, timeoutMs);
  } catch (err) {
    throw new Error(
      `no '${title}' toast: ${(err as Error).message}\nagent output:\n${agent.output.slice(-3000)}\nbrowser errors:\n${errors.join('\n')}`,
    );
  }
  return shown.innerText();
}

describe('restore feedback on the dashboard', () => {
  it('shows the restore on the backup row, a toast when it completes, and the details in Restore History', async () => {
    const { page, context, errors } = await newSession(browser());
    try {
      await signIn(page, owner);
      const row = page.getByTestId('backup-row').filter({ hasText: LABEL });
      await visible(row.locator('[data-status="completed"]'));

      // Record every state the restore row under the backup goes through (a MutationObserver
      // misses none, however short).
      await page.evaluate(() => {
        const seen: string[] = (window.__restoreSeen = []);
        new MutationObserver(() => {
          document.querySelectorAll('[data-testid="backup-restore"]').forEach((el) => {
            const text = `${el.getAttribute('data-status')}|${el.querySelector('[data-testid="progress-block"]') ? 'progress' : ''}`;
            if (seen[seen.length - 1] !== text) seen.push(text);
          });
        }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
      });

      // The restore shows under its backup's row at once, then how it ended, with a toast.
      const restoreRow = await restoreFromRow(page);
      const shown = await toastText(page, 'Restore completed', 60_000, errors);
      const listed = await api('GET', '/api/backups/restores/all', { token: owner.token });
      const restore = await waitRestore(owner.token, (listed.body as Array<{ _id: string }>)[0]!._id);
      expect(restore).toMatchObject({ status: 'completed', backupId: backup._id, documentsFailed: 0 });
      expect(restore.documentsRestored).toBeGreaterThan(0);
      expect(restore.backupTimestamp).toBe(backup.timestamp);
      const counts = `${restore.documentsRestored.toLocaleString('en-US')} documents restored, 0 failed`;
      const backupDate = formatBackupDate(backup.timestamp);
      expect(shown).toContain(`${LABEL} was restored from the backup of ${backupDate}. ${counts}.`);
      // Once done, the row says what the restore did.
      await visible(restoreRow.filter({ hasText: 'Restore completed' }));
      expect(await restoreRow.getAttribute('data-status')).toBe('completed');
      await visible(restoreRow.getByTestId('restore-result').getByText(counts, { exact: true }));
      const seen = await page.evaluate(() => window.__restoreSeen ?? []);
      // It was on the row while running, with a progress block, before it completed.
      expect(seen.some((s) => /^(pending|in-progress)\|progress$/.test(s))).toBe(true);
      expect(seen.at(-1)).toBe('completed|');
      // Kept for a few seconds, then the row is the backup's alone again.
      await restoreRow.waitFor({ state: 'detached', timeout: 15_000 });

      // Restore History: which backup, the counts, the status text whole.
      await page.getByRole('tab', { name: 'Restore History' }).click();
      const history = page.getByTestId('restore-row').first();
      await visible(history.getByText('Completed', { exact: true }));
      const details = history.getByTestId('restore-details');
      await visible(details.getByText('Restore completed successfully', { exact: true }));
      await visible(details.getByText(`Backup of ${backupDate}`, { exact: true }));
      await visible(details.getByText(counts, { exact: true }));
      // Nothing in the details is clipped: every line is as wide as its text.
      const clipped = await details.evaluate((cell) =>
        [cell, ...Array.from(cell.querySelectorAll('*'))]
          .filter((el) => el.scrollWidth > el.clientWidth + 1)
          .map((el) => el.textContent),
      );
      expect(clipped).toEqual([]);
      expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('says on the row and in a toast why a restore failed', async () => {
    // The customer's database server is gone: the agent cannot restore into it.
    await customer().stop();
    const { page, context, errors } = await newSession(browser());
    try {
      await signIn(page, owner);
      const restoreRow = await restoreFromRow(page);
      const shown = await toastText(page, 'Restore failed', 90_000, errors);
      const listed = await api('GET', '/api/backups/restores/all', { token: owner.token });
      const restore = (listed.body as Array<{ status: string; error?: string }>)[0]!;
      expect(restore.status).toBe('failed');
      expect(restore.error).toBeTruthy();
      // The toast and the row give the agent's reason.
      expect(shown).toContain(
        `Restoring ${LABEL} from the backup of ${formatBackupDate(backup.timestamp)} failed.`,
      );
      expect(shown).toContain(restore.error!.replace(/\.$/, ''));
      await visible(restoreRow.filter({ hasText: 'Restore failed' }));
      expect(await restoreRow.getAttribute('data-status')).toBe('failed');
      await visible(restoreRow.getByText(restore.error!, { exact: true }));
    } finally {
      await context.close();
    }
  });
});
