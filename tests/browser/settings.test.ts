// Settings tabs and the dashboard of a fresh account (no agent yet): empty states, the setup
// wizard, General save, Databases empty state, Security key regeneration, Agents empty state.
import type { Page } from 'playwright-core';
import {
  api,
  newSession,
  registeredUser,
  signIn,
  toast,
  visible,
  expectTitle,
  browserForFile,
} from './helpers';
import { eventually } from '../integration/helpers';

const browser = browserForFile();

async function optionStates(page: Page, label: string) {
  return page
    .getByLabel(label, { exact: true })
    .locator('option')
    .evaluateAll((options) =>
      options.map((o) => `${(o as HTMLOptionElement).value}:${(o as HTMLOptionElement).disabled}`),
    );
}

describe('dashboard while its data loads', () => {
  it("shows no 'No agents / Disconnected' and no zeros before the server has answered", async () => {
    const user = await registeredUser('dash-loading');
    const { page, context } = await newSession(browser());
    try {
      await signIn(page, user);
      // Hold the two answers the cards wait for until the page has been looked at.
      const held: Array<() => void> = [];
      const hold = (pattern: string) =>
        page.route(pattern, (route) => {
          held.push(() => void route.continue());
        });
      await hold('**/api/settings/system-status');
      await hold('**/api/backups');
      await page.reload();
      await eventually(async () => expect(held.length).toBeGreaterThanOrEqual(2));
      await visible(page.getByTestId('system-status-loading'));
      expect(await page.getByText('No backup agents connected').count()).toBe(0);
      expect(await page.getByText('Disconnected', { exact: true }).count()).toBe(0);
      expect(await page.getByTestId('summary-Success Rate').innerText()).toBe('—');
      expect(await page.getByTestId('summary-Total Backups').innerText()).toBe('—');
      expect(await page.getByText('0 failures in total').count()).toBe(0);

      // Once they arrive, the empty account's real state.
      for (const release of held.splice(0)) release();
      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await visible(page.getByText('No backup agents connected'));
      await visible(page.getByText('0 failures in total'));
      await visible(page.getByText('Connected', { exact: true }));
    } finally {
      await context.close();
    }
  });
});

describe('dashboard without an agent', () => {
  it('shows the empty states, the setup wizard and no backup to trigger', async () => {
    const user = await registeredUser('dash');
    const { apiKey } = (await api('GET', '/api/user/profile', { token: user.token })).body;
    const { page, context, errors } = await newSession(browser());
    try {
      await signIn(page, user);
      await expectTitle(page, 'Coffer – Dashboard');
      await visible(page.getByText('Manage and monitor your MongoDB backups'));
      await visible(page.getByText('No backups found. Trigger a backup to protect your data.'));
      await visible(page.getByText('No backup agents connected'));
      await visible(page.getByText('Last backup: Never'));
      await visible(page.getByText('0 failures in total'));
      await visible(page.getByText(/^0 Bytes of .+ \(Free plan\)$/));
      // No agent registered a database: no stand-in name once the list has loaded.
      await visible(page.getByTestId('no-database'));
      expect(await page.getByLabel('Database', { exact: true }).inputValue()).toBe('');
      expect(await page.getByText('Database Limit Exceeded').count()).toBe(0);
      // The backup service answers in the test stack.
      await visible(page.getByText('Connected', { exact: true }));
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      await visible(toast(page, 'Backup service is online and functioning properly'));

      await page.getByRole('tab', { name: 'Restore History' }).click();
      await visible(page.getByText('Recent database restore operations'));
      await visible(page.getByText('No restore operations found.'));
      await page.getByRole('tab', { name: 'Backups' }).click();

      // Nothing to back up yet: Trigger Backup waits for a database.
      expect(await page.getByRole('button', { name: 'Trigger Backup' }).isDisabled()).toBe(true);

      // Setup wizard: six steps, Download skipped for the automated installer.
      await page.getByRole('button', { name: 'Open Setup Wizard' }).click();
      const wizard = page.getByTestId('setup-wizard');
      await visible(wizard.getByText('Step 1 of 6'));
      expect(await wizard.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);
      await wizard.getByRole('button', { name: 'Next' }).click();
      await visible(wizard.getByText('Step 2 of 6'));
      await visible(wizard.getByText('Ubuntu, Debian, CentOS'));
      await wizard.getByRole('button', { name: 'Next' }).click();
      await visible(wizard.getByText('Step 3 of 6'));
      await wizard.getByRole('button', { name: 'Next' }).click();
      await visible(wizard.getByText('Step 5 of 6'));
      const origin = new URL(page.url()).origin;
      expect(await wizard.getByTestId('install-command').innerText()).toBe(
        `curl -fsSL ${origin}/downloads/install.sh | sudo bash -s -- --server ${origin}`,
      );
      // The key is shown beside the command, never in it (ps, shell history): the installer asks for it.
      expect(await wizard.getByTestId('wizard-api-key').innerText()).toBe(apiKey);
      await wizard.getByRole('button', { name: 'Previous' }).click();
      await visible(wizard.getByText('Step 3 of 6'));
      await wizard.getByText('Manual installation').click();
      await wizard.getByRole('button', { name: 'Next' }).click();
      await visible(wizard.getByText('Step 4 of 6'));
      expect(
        await wizard.getByRole('link', { name: /Download coffer-agent-linux-x64/ }).getAttribute('href'),
      ).toBe('/downloads/coffer-agent-linux-x64');
      await wizard.getByRole('button', { name: 'Next' }).click();
      await visible(wizard.getByText('Step 5 of 6'));
      const manual = await wizard.getByTestId('install-command').innerText();
      expect(manual).toContain(`sha256sum -c --ignore-missing SHA256SUMS`);
      expect(manual).toContain(
        `sudo /usr/local/bin/coffer-agent init --server ${origin} --config /etc/coffer/agent.json`,
      );
      expect(manual).not.toContain(apiKey);
      // Each command is a block of its own with a hanging indent, so one that wraps in the narrow
      // box (a phone here) still reads as one command (issue 21, walk 11).
      await page.setViewportSize({ width: 375, height: 812 });
      const lines = wizard.getByTestId('install-command-line');
      expect(await lines.count()).toBe(manual.split('\n').length);
      const layout = await lines.evaluateAll((els) =>
        els.map((el) => ({
          indent: parseFloat(getComputedStyle(el).textIndent),
          wraps: el.getClientRects().length > 0 && el.getBoundingClientRect().height > 30,
        })),
      );
      expect(layout.every((l) => l.indent < 0)).toBe(true);
      expect(layout.some((l) => l.wraps)).toBe(true);
      // A root shell without sudo gets the same commands without it.
      await wizard.getByTestId('root-shell').click();
      const asRoot = await wizard.getByTestId('install-command').innerText();
      expect(asRoot).not.toContain('sudo');
      expect(asRoot).toContain(`/usr/local/bin/coffer-agent init --server ${origin} --config`);
      await wizard.getByTestId('root-shell').click();
      await page.setViewportSize({ width: 1280, height: 900 });
      await wizard.getByRole('button', { name: 'Next' }).click();
      await visible(wizard.getByText('Step 6 of 6'));
      // The advice matches the address shown: the test stack is plain http.
      const hint = await wizard.getByTestId('wizard-reachability').innerText();
      expect(hint).toContain(`reach ${origin} over plain HTTP (port ${new URL(origin).port})`);
      expect(hint).not.toContain('HTTPS');
      await visible(wizard.getByRole('button', { name: 'Close' }));
      await wizard.getByRole('button', { name: 'Check Agent Status' }).click();
      await wizard.waitFor({ state: 'hidden' });

      // Opening again starts over.
      await page.getByRole('button', { name: 'Open Setup Wizard' }).click();
      await visible(page.getByTestId('setup-wizard').getByText('Step 1 of 6'));
      expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('settings', () => {
  it('saves General, shows empty Databases and Agents, regenerates the API key after confirming', async () => {
    const user = await registeredUser('settings');
    const { apiKey } = (await api('GET', '/api/user/profile', { token: user.token })).body;
    const { page, context, errors } = await newSession(browser());
    try {
      await signIn(page, user);
      await page.getByRole('link', { name: 'Settings' }).first().click();
      await page.waitForURL('**/settings');
      await expectTitle(page, 'Coffer – Settings');
      await visible(page.getByRole('link', { name: 'Back to Dashboard' }));

      // General is the default tab; the Free plan allows daily at most and 7 days of retention.
      await visible(page.getByRole('button', { name: 'Save Changes' }));
      expect(await page.getByLabel('Backup Frequency').inputValue()).toBe('daily');
      // The plan arrives separately from the settings: wait until its limits are applied.
      await eventually(async () =>
        expect(await optionStates(page, 'Backup Frequency')).toEqual([
          'hourly:true',
          'daily:false',
          'weekly:false',
          'monthly:false',
        ]),
      );
      expect(await page.getByLabel('Retention Period').inputValue()).toBe('72');
      await eventually(async () =>
        expect(await optionStates(page, 'Retention Period')).toEqual([
          '72:false',
          '168:false',
          '336:true',
          '720:true',
          '2160:true',
          '4320:true',
        ]),
      );
      await page.getByLabel('Backup Frequency').selectOption('weekly');
      await page.getByLabel('Retention Period').selectOption('168');
      await page.getByRole('button', { name: 'Save Changes' }).click();
      await visible(page.getByRole('button', { name: 'Saved!' }));
      const saved = await api('GET', '/api/settings', { token: user.token });
      expect(saved.body).toMatchObject({ frequency: 168, retention: 168 });
      await visible(page.getByRole('button', { name: 'Save Changes' }), 5_000);

      // Databases: nothing reported by an agent yet.
      await page.getByRole('tab', { name: 'Databases' }).click();
      await page.waitForURL('**/settings?tab=databases');
      await visible(page.getByText('No databases configured'));
      await visible(page.getByText(/never stored on the Coffer server/));

      // Agents: none; 'Setup New Agent' leads to Security.
      await page.getByRole('tab', { name: 'Agents' }).click();
      await visible(page.getByText('No agents configured'));
      await visible(page.getByText('No Agent Selected'));
      await page.getByRole('button', { name: 'Setup New Agent' }).click();
      await page.waitForURL('**/settings?tab=security');

      // Security: masked key, regenerate only after confirming, new key shown.
      const keyField = page.getByTestId('settings-api-key');
      await visible(keyField);
      expect(await keyField.getAttribute('type')).toBe('password');
      expect(await keyField.inputValue()).toBe(apiKey);
      await page.getByRole('button', { name: 'Regenerate API Key' }).click();
      const dialog = page.getByTestId('confirm-dialog');
      await visible(
        dialog.getByText(
          'Are you sure you want to regenerate your API key? This will invalidate your current key and require reconfiguring all your agents.',
        ),
      );
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect((await api('GET', '/api/user/profile', { token: user.token })).body.apiKey).toBe(apiKey);

      await page.getByRole('button', { name: 'Regenerate API Key' }).click();
      await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Regenerate' }).click();
      await visible(
        page.getByText("API key has been regenerated. You'll need to update your agents with the new key."),
      );
      const profile = await api('GET', '/api/user/profile', { token: user.token });
      expect(profile.body.apiKey).not.toBe(apiKey);
      expect(await keyField.getAttribute('type')).toBe('text');
      expect(await keyField.inputValue()).toBe(profile.body.apiKey);
      await visible(page.getByText('Encryption keys are managed locally on the agent', { exact: false }));
      expect(await page.getByLabel('Service Endpoint').inputValue()).toBe(new URL(page.url()).origin);

      // Notifications: the account address; a test mail can be sent.
      await page.getByRole('tab', { name: 'Notifications' }).click();
      expect(await page.getByLabel('Notification Email').inputValue()).toBe(user.email);
      await page.getByRole('button', { name: 'Send Test Notification' }).click();
      await visible(page.getByText('Test notification sent successfully. Please check your email.'));

      // ?tab= opens a tab directly.
      await page.goto('/settings?tab=databases');
      await visible(page.getByText('No databases configured'));
      expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
