// Verified backups (issue 20) in the browser: Settings → Databases sets a database's verification
// (saved on the server), and the dashboard's backup rows show what the newest verification of each
// found: "Verified" with the time and what was checked, or "Verification failed" with the first
// difference. The rows are those the orchestrator writes after real runs (the agent side runs in
// tests/integration/pipeline/verified-backups.test.ts).
import crypto from 'node:crypto';
import { ObjectId } from 'mongodb';
import {
  api,
  newSession,
  registeredUser,
  signIn,
  visible,
  type RegisteredUser,
  browserForFile,
  stackMongoForFile,
} from './helpers';
import { eventually } from '../integration/helpers';

jest.setTimeout(180_000);

const HOUR = 3_600_000;
const DB = 'shop';

const browser = browserForFile();
const mongo = stackMongoForFile();

/** Two completed backups of `shop`: the newer verified, the older with a digest difference. */
async function seed(user: RegisteredUser): Promise<void> {
  const db = mongo().db('coffer_orchestrator');
  const now = Date.now();
  const job = (hoursAgo: number) => ({
    userId: user.id,
    databaseName: DB,
    agentId: crypto.randomBytes(12).toString('hex'),
    createdAt: new Date(now - hoursAgo * HOUR - 60_000),
    commandId: crypto.randomUUID(),
    commandSentAt: new Date(now - hoursAgo * HOUR - 60_000),
    startedAt: new Date(now - hoursAgo * HOUR - 50_000),
    completedAt: new Date(now - hoursAgo * HOUR),
    absentSince: null,
    error: null,
  });
  const backup = (id: ObjectId, hoursAgo: number) => ({
    _id: id,
    ...job(hoursAgo),
    status: 'completed',
    type: 'manual',
    size: 4_000_000,
    keyFingerprint: null,
    scheduleSlot: `manual:${crypto.randomUUID()}`,
    deletingSince: null,
    lockedUntil: null,
  });
  const newer = new ObjectId();
  const older = new ObjectId();
  await db.collection('backups').insertMany([backup(newer, 1), backup(older, 25)]);
  await db.collection('verifications').insertMany([
    {
      ...job(0.5),
      backupId: String(newer),
      status: 'completed',
      checked: { collections: 6, documents: 38722, indexes: 11 },
      difference: null,
    },
    {
      ...job(24.5),
      backupId: String(older),
      status: 'failed',
      checked: { collections: 6, documents: 38722, indexes: 11 },
      difference: { collection: 'orders', what: 'documents', expected: '1200', found: '1199' },
      error: 'The restored copy differs: orders: 1200 documents expected, 1199 found',
    },
  ]);
  await db.collection('databases').insertOne({
    userId: user.id,
    name: DB,
    enabled: true,
    createdAt: new Date(now - 200 * HOUR),
    lastScheduledSlot: null,
  });
}

describe('verified backups in the browser', () => {
  it('sets verification per database and shows each backup row what its verification found', async () => {
    const user = await registeredUser('verified');
    await seed(user);
    const { page, context, errors } = await newSession(browser(), { width: 1280, height: 900 });
    try {
      await signIn(page, user);
      await page.goto('/settings?tab=databases');
      const select = page.getByLabel(`Verification of ${DB}`);
      await visible(select);
      expect(await select.inputValue()).toBe('off');
      await select.selectOption('each');
      await eventually(async () => {
        const dbs = (await api('GET', '/api/settings/databases', { token: user.token })).body as Array<{
          name: string;
          verify: string;
        }>;
        expect(dbs.find((d) => d.name === DB)?.verify).toBe('each');
      });
      await page.reload();
      expect(await page.getByLabel(`Verification of ${DB}`).inputValue()).toBe('each');

      await page.goto('/dashboard');
      const badges = page.getByTestId('verification-badge');
      const verified = badges.and(page.locator('[data-status="verified"]'));
      await visible(verified.getByText('Verified', { exact: true }));
      await visible(
        verified.getByText(/6 collections, 38,722 documents, indexes and content digest checked/),
      );
      const failed = badges.and(page.locator('[data-status="failed"]'));
      await visible(failed.getByText('Verification failed', { exact: true }));
      await visible(failed.getByText(/orders: 1200 documents expected, 1199 found/));
      // The failure deleted nothing: both backups are listed and can still be restored.
      expect(await page.getByTestId('backup-row').count()).toBe(2);
      await page.screenshot({ path: '/tmp/coffer-verified-backups.png', fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
