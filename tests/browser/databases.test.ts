// Databases as a user sees them with a real `coffer-agent` (issue 10): an agent with no database
// leaves no stand-in name in the selector, the dashboard says how to add one and Trigger Backup
// waits for it; Settings → Databases shows the server's reason for a refused Enable (plan limit)
// and, when disabling the active database lets another one in, says which.
import type { Page } from 'playwright-core';
import { eventually, newUser, type TestUser } from '../integration/helpers';
import { agentCli, agentsForFile, setupAgent, type Agent } from '../integration/pipeline/harness';
import { api, browserForFile, newSession, signIn, visible } from './helpers';

jest.setTimeout(120_000);

// Names only matter here: `--no-check` adds them without a database server behind the URI.
const NOWHERE = 'mongodb://127.0.0.1:9/unused';

const browser = browserForFile();
agentsForFile();
async function optionValues(page: Page): Promise<string[]> {
  return page
    .getByLabel('Database', { exact: true })
    .locator('option')
    .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
}

describe('an agent connected with no database', () => {
  let owner: TestUser;
  let agent: Agent;
  beforeAll(async () => {
    owner = await newUser('nodb');
    agent = await setupAgent(owner, []);
  });

  it('shows how to add one, disables Trigger Backup, then offers the database the agent adds', async () => {
    const { page, context, errors } = await newSession(browser());
    try {
      await signIn(page, owner);
      await visible(page.getByText(agent.name));
      const notice = page.getByTestId('no-database');
      await visible(notice);
      await visible(notice.getByText('No database to back up yet'));
      // The agent runs on Linux here: the command is the agent CLI's own syntax, with a copy button.
      expect(await notice.getByTestId('db-add-command').allInnerTexts()).toEqual([
        'sudo coffer-agent db add NAME --uri -',
      ]);
      await visible(notice.getByRole('button', { name: 'Copy command' }));

      // No phantom database: the selector offers nothing and Trigger Backup is disabled.
      expect(await optionValues(page)).toEqual(['']);
      expect(await page.getByLabel('Database', { exact: true }).inputValue()).toBe('');
      expect(await page.getByRole('button', { name: 'Trigger Backup' }).isDisabled()).toBe(true);
      expect(await page.getByText('production-db').count()).toBe(0);

      // The user runs the command on the agent's machine: the dashboard picks the database up.
      const add = await agentCli(['db', 'add', 'orders', '--uri', '-', '--no-check'], agent.config, NOWHERE);
      expect(add.code).toBe(0);
      await eventually(async () => {
        expect(await optionValues(page)).toEqual(['orders']);
      }, 30_000);
      await notice.waitFor({ state: 'detached' });
      expect(await page.getByLabel('Database', { exact: true }).inputValue()).toBe('orders');
      expect(await page.getByRole('button', { name: 'Trigger Backup' }).isDisabled()).toBe(false);
      expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('the plan limit in Settings → Databases', () => {
  let owner: TestUser;
  beforeAll(async () => {
    owner = await newUser('dblimit');
    await setupAgent(owner, [
      { label: 'alpha', uri: NOWHERE, check: false },
      { label: 'beta', uri: NOWHERE, check: false },
    ]);
  });

  it("shows the server's reason for a refused Enable and names the database that became active", async () => {
    // The Free plan keeps one database active: the older one; which that is is the server's call.
    const listed = (await api('GET', '/api/settings/databases', { token: owner.token })).body as Array<{
      name: string;
      isActive: boolean;
    }>;
    const active = listed.find((d) => d.isActive)!.name;
    const inactive = listed.find((d) => !d.isActive)!.name;
    const { page, context, errors } = await newSession(browser());
    try {
      await signIn(page, owner);
      await visible(page.getByTestId('database-limit-alert'));
      await page.goto('/settings?tab=databases');
      const row = (name: string) => page.getByTestId('database-row').filter({ hasText: name });
      await visible(row(inactive).getByText('Disabled'));

      // Enabling the second one would pass the limit: the server's reason, not a generic failure.
      await row(inactive).getByRole('button', { name: 'Enable' }).click();
      const refusal = page.getByRole('alert').filter({ hasText: 'Your plan allows 1 active database.' });
      await visible(refusal);
      expect(await refusal.innerText()).toBe(
        'Your plan allows 1 active database. Disable another database or upgrade your plan.',
      );
      expect(await page.getByText('Failed to update database. Please try again.').count()).toBe(0);

      // Disabling the active one lets the other in: the page says so.
      await row(active).getByRole('button', { name: 'Disable' }).click();
      const outcome = page.getByRole('status').filter({ hasText: `Disabled ${active}.` });
      await visible(outcome);
      expect(await outcome.innerText()).toBe(
        `Disabled ${active}. ${inactive} is now active and will be backed up: your plan keeps the first enabled databases active up to its limit.`,
      );
      await expect(refusal.count()).resolves.toBe(0);
      await visible(row(inactive).getByText('Active', { exact: true }));
      await visible(row(active).getByText('Disabled', { exact: true }));
      const after = (await api('GET', '/api/settings/databases', { token: owner.token })).body as Array<{
        name: string;
        isActive: boolean;
      }>;
      expect(after.filter((d) => d.isActive).map((d) => d.name)).toEqual([inactive]);

      // The dashboard backs up the one now active.
      await page.goto('/dashboard');
      await eventually(async () => {
        expect(await page.getByLabel('Database', { exact: true }).inputValue()).toBe(inactive);
      });
      // The user disabled one of two on a one-database plan: no limit is exceeded, and the selector
      // says why the other cannot be picked (issue 21, walk 6).
      const options = page.getByLabel('Database', { exact: true }).locator('option');
      expect(await options.allInnerTexts()).toEqual(
        expect.arrayContaining([inactive, `${active} (Disabled in Settings)`]),
      );
      expect(await page.getByText('(Inactive - Plan Limit Exceeded)').count()).toBe(0);
      expect(await page.getByTestId('database-limit-alert').count()).toBe(0);
      expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
