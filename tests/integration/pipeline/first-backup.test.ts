// Issue 21, walk item 1: the newcomer's first Trigger Backup. The knowledge base tells a new user to
// press Trigger Backup once the agent reports the database; the scheduler used to take that
// database's first automatic backup at its next tick, and the plan's interval then refused the
// click ('Backup Limit Reached … next backup in 24 h'). The scheduler now leaves a new database's
// first backup to the user for FIRST_BACKUP_GRACE_MINUTES.
import { api, newUser } from '../helpers';
import {
  customerDbForFile,
  setupAgent,
  triggerBackup,
  uniqueName,
  waitAgentActive,
  waitBackup,
} from './harness';
import { seedDatabase } from '../../../agent/src/testing/database-fixtures';

jest.setTimeout(180_000);

const LABEL = 'first-db';
const DB = uniqueName('first_');
/** The test stack's scheduler tick (global-setup.ts sets SCHEDULER_TICK_MS). */
const TICK_MS = Number(process.env.COFFER_SCHEDULER_TICK_MS ?? 30_000);

const customer = customerDbForFile();

beforeAll(async () => {
  await seedDatabase(customer().client, DB, { events: 100 });
});

it('accepts the first Trigger Backup of a new database after the scheduler has looked at it', async () => {
  const owner = await newUser('first-backup');
  const agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }]);
  await waitAgentActive(owner.token, agent.name);
  // The scheduler's absence can only be shown by letting it run: three ticks of each of the two
  // orchestrators pass while the database is listed as active (before the fix, the first of them
  // started an automatic backup and the click below was answered with a 429).
  await new Promise((r) => setTimeout(r, 3 * TICK_MS + 1000));
  expect((await api('GET', '/api/backups', { token: owner.token })).body).toEqual([]);

  const created = await triggerBackup(owner.token, LABEL);
  expect(created).toMatchObject({ databaseName: LABEL, status: 'pending' });
  const listed = (await api('GET', '/api/backups', { token: owner.token })).body as any[];
  expect(listed.map((b) => b._id)).toEqual([created._id]);
  await expect(waitBackup(owner.token, created._id, 60_000, agent)).resolves.toMatchObject({
    status: 'completed',
  });
});
