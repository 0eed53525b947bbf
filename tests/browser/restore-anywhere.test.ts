// Restore anywhere from the dashboard (issue 20): the restore dialog's choice of target (another
// database of the same agent; an agent without the backup's key offered but disabled, with how to
// import the key) and its collection checklist; the typed confirmation is the target's name; the
// real agent restores only the chosen collections into the chosen database, and Restore History
// shows source and target.
import { newUser, type TestUser } from '../integration/helpers';
import { seedDatabase } from '../../agent/src/testing/database-fixtures';
import {
  backupCompleted,
  customerDbForFile,
  setupAgent,
  uniqueName,
  upgradeToPro,
  waitRestore,
  type Agent,
} from '../integration/pipeline/harness';
import { api, browserForFile, newSession, signIn, visible } from './helpers';

jest.setTimeout(180_000);

const SHOP = 'shop';
const SHOP_DB = uniqueName('shop_');
const COPY = 'shop-copy';
const COPY_DB = uniqueName('copy_');
const OTHER = 'elsewhere';

const browser = browserForFile();
const customer = customerDbForFile();
let owner: TestUser;
let agent: Agent;
let stray: Agent;

beforeAll(async () => {
  owner = await newUser('restore-anywhere');
  await upgradeToPro(owner);
  await seedDatabase(customer().client, SHOP_DB, { events: 20 });
  agent = await setupAgent(owner, [
    { label: SHOP, uri: customer().uri(SHOP_DB) },
    { label: COPY, uri: customer().uri(COPY_DB), check: false },
  ]);
  // An agent of the same account with its own key: it cannot restore this backup.
  stray = await setupAgent(owner, [
    { label: OTHER, uri: customer().uri(uniqueName('other_')), check: false },
  ]);
  const backup = await backupCompleted(owner.token, SHOP, agent);
  // The checklist comes from the collections the agent reports once the backup is stored.
  for (let i = 0; i < 100; i++) {
    const b = (await api('GET', `/api/backups/${backup._id}`, { token: owner.token })).body as any;
    if (b.collections) break;
    await new Promise((r) => setTimeout(r, 200));
  }
});

it('restores chosen collections into another database, and the history shows source and target', async () => {
  const { page, context, errors } = await newSession(browser());
  try {
    await signIn(page, owner);
    const row = page.getByTestId('backup-row').filter({ hasText: SHOP }).first();
    await row.getByRole('button', { name: 'Restore backup' }).click();
    const dialog = page.getByTestId('restore-dialog');

    // The default is the spec's: the backup's own database.
    const select = dialog.getByTestId('restore-target');
    await visible(select);
    expect(await select.locator('option:checked').textContent()).toBe(
      `${SHOP} on ${agent.name} (the backup's own database)`,
    );
    // The agent without the key is listed, disabled, and the dialog says how to bring the key.
    const strayOption = select.locator('option', { hasText: `${OTHER} on ${stray.name}` });
    expect(await strayOption.textContent()).toContain('does not hold the key this backup was made with');
    expect(await strayOption.isDisabled()).toBe(true);
    await visible(
      dialog.getByTestId('key-import-help').getByText('coffer-agent key import coffer.key --force'),
    );

    await select.selectOption({ label: `${COPY} on ${agent.name}` });
    const checklist = dialog.getByTestId('restore-collections');
    await visible(checklist.getByText('customers', { exact: true }));
    await checklist.getByText('events', { exact: true }).click();
    await checklist.getByText('ünïcode', { exact: true }).click();
    await visible(dialog.getByText('Collections (4 of 6)'));
    await visible(dialog.getByText(`Restoring replaces the chosen collections in`));

    await dialog.getByRole('button', { name: 'I understand, continue' }).click();
    await visible(dialog.getByText('The chosen collections will be dropped'));
    await dialog.getByRole('button', { name: 'Continue with restore' }).click();
    // The typed confirmation is the target's name, not the backup's.
    await dialog.getByPlaceholder(COPY).fill(SHOP);
    await visible(dialog.locator('button[type="submit"][disabled]'));
    await dialog.getByPlaceholder(COPY).fill(COPY);
    await dialog.getByRole('button', { name: 'Restore database' }).click();
    await dialog.waitFor({ state: 'detached' });

    const list = (await api('GET', '/api/backups/restores/all', { token: owner.token })).body as any[];
    const done = await waitRestore(owner.token, list[0]._id, 60_000, agent);
    expect(done).toMatchObject({ status: 'completed', databaseName: COPY, sourceDatabaseName: SHOP });
    expect(done).toMatchObject({ documentsRestored: 44, documentsFailed: 0 }); // 40 + 2 + 0 + 2
    const restored = (await customer().client.db(COPY_DB).listCollections().toArray())
      .map((c) => c.name)
      .sort();
    expect(restored).toEqual(['customers', 'dots.in.name', 'empty', 'with space']);
    expect(await customer().client.db(SHOP_DB).collection('events').countDocuments()).toBe(20);

    await page.getByRole('tab', { name: 'Restore History' }).click();
    const history = page.getByTestId('restore-row').first();
    await visible(history.getByText('Completed', { exact: true }));
    await visible(history.getByTestId('restore-target-cell').getByText(COPY, { exact: true }));
    await visible(history.getByTestId('restore-target-cell').getByText(`on ${agent.name}`));
    // Same agent, another database: the source is named.
    await visible(history.getByTestId('restore-source').getByText(`From '${SHOP}' on ${agent.name}`));
    const chosen = history.getByText(/^Collections: /);
    await visible(chosen);
    const names = (await chosen.textContent())!.replace('Collections: ', '').split(', ').sort();
    expect(names).toEqual(['customers', 'dots.in.name', 'empty', 'with space']);
    expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  } finally {
    await context.close();
  }
});
