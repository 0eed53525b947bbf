// A backup of an empty database, restored from the dashboard over a database that holds data
// (issue 19): the real agent refuses it and Restore History shows why; "Restore anyway…" on that
// row opens the restore dialog again, whose last step asks the user to confirm exactly that case,
// and the confirmed restore empties the database.
import type { Locator } from 'playwright-core';
import { newUser, type TestUser } from '../integration/helpers';
import { insertEvents } from '../../agent/src/testing/database-fixtures';
import {
  backupCompleted,
  customerDbForFile,
  setupAgent,
  uniqueName,
  waitRestore,
  type Agent,
} from '../integration/pipeline/harness';
import { api, browserForFile, newSession, signIn, visible } from './helpers';

jest.setTimeout(180_000);

const LABEL = 'fresh-db';
const DB = uniqueName('fresh_');

const browser = browserForFile();
const customer = customerDbForFile();
let owner: TestUser;
let agent: Agent;

beforeAll(async () => {
  owner = await newUser('restore-empty');
  agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }]);
  await backupCompleted(owner.token, LABEL, agent); // of the database while it is still empty
  await insertEvents(customer().client, DB, 30);
});

const latestRestore = async () =>
  (
    (await api('GET', '/api/backups/restores/all', { token: owner.token })).body as Array<{ _id: string }>
  )[0]!;

async function throughTheSteps(dialog: Locator) {
  await dialog.getByRole('button', { name: 'I understand, continue' }).click();
  await dialog.getByRole('button', { name: 'Continue with restore' }).click();
  await dialog.getByPlaceholder(LABEL).fill(LABEL);
}

it('refuses the empty backup with its reason, then restores it once the user confirms that case', async () => {
  const { page, context, errors } = await newSession(browser());
  try {
    await signIn(page, owner);
    const row = page.getByTestId('backup-row').filter({ hasText: LABEL });
    await row.getByRole('button', { name: 'Restore backup' }).click();
    const dialog = page.getByTestId('restore-dialog');
    await throughTheSteps(dialog);
    // Nothing says this backup is empty yet: the server does not know; the agent finds out.
    await visible(dialog.getByRole('button', { name: 'Restore database' }));
    expect(await dialog.getByTestId('confirm-empty-backup').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Restore database' }).click();
    await dialog.waitFor({ state: 'detached' });

    const refused = await waitRestore(owner.token, (await latestRestore())._id, 60_000, agent);
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatch(/^Refusing to restore "fresh-db": this backup holds no documents/);
    expect(await customer().client.db(DB).collection('events').countDocuments()).toBe(30);

    await page.getByRole('tab', { name: 'Restore History' }).click();
    const history = page.getByTestId('restore-row').first();
    await visible(history.getByText('Failed', { exact: true }));
    // The reason is the row's error (cut to 50 characters, whole in its title).
    await visible(history.locator(`[title="${refused.error.replace(/"/g, '\\"')}"]`));
    await history.getByRole('button', { name: 'Restore anyway…' }).click();

    const again = page.getByTestId('restore-dialog');
    await throughTheSteps(again);
    // The name typed is not enough: the user must confirm the empty backup itself.
    await visible(again.locator('button[type="submit"][disabled]'));
    await again.getByTestId('confirm-empty-backup').getByText('This backup holds no documents').click();
    const restoreButton = again.locator('button[type="submit"]:not([disabled])');
    await visible(restoreButton);
    await restoreButton.click();
    await again.waitFor({ state: 'detached' });

    const confirmed = await waitRestore(owner.token, (await latestRestore())._id, 60_000, agent);
    expect(confirmed).toMatchObject({ status: 'completed', documentsRestored: 0, documentsFailed: 0 });
    expect(await customer().client.db(DB).listCollections().toArray()).toEqual([]);
    expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  } finally {
    await context.close();
  }
});
