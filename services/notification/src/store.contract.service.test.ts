// One set of cases for both store implementations: the in-memory fakes notification's unit tests
// use and the mongoose stores on a real FerretDB. A case that passes for one and fails for the other
// means a unit test somewhere proves less than it claims.
import { ferretDbPerCase } from '@coffer/common/testing';
import { notificationModels } from './model';
import { fakeOutbox, fakePreferencesStore } from './store.fake';
import {
  FORGOTTEN,
  outboxStore,
  preferencesStore,
  type OutboxRecord,
  type OutboxStore,
  type PreferencesStore,
} from './store';

const ferretDb = ferretDbPerCase('notification_contract');

interface Stores {
  preferences: PreferencesStore;
  outbox: OutboxStore;
}

async function onFerretDb(): Promise<Stores> {
  const models = notificationModels(ferretDb.fresh());
  await Promise.all(Object.values(models).map((m) => m.init()));
  return { preferences: preferencesStore(models), outbox: outboxStore(models) };
}

const ADA = 'a'.repeat(24);
const GRACE = 'g'.repeat(24);
const T0 = new Date('2025-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const ALL_ON = { backupSuccess: true, backupFailure: true, agentDisconnection: true, email: null };

/** What an outbox record holds besides its key fields: the operator reads these when a mail fails. */
interface OutboxOutcome {
  lastError: string | null;
  messageId: string | null;
  sentAt: Date | null;
}
/** The record as stored, without the database's own _id. */
const stored = (r: OutboxRecord | null): (OutboxRecord & OutboxOutcome) | null => {
  if (!r) return null;
  const { _id: _ignored, ...rest } = r as OutboxRecord & OutboxOutcome & { _id?: unknown };
  return rest;
};

describe.each([
  [
    'in-memory fakes',
    async (): Promise<Stores> => ({ preferences: fakePreferencesStore(), outbox: fakeOutbox() }),
  ],
  ['mongoose on FerretDB', onFerretDb],
])('notification stores: %s', (_name, make) => {
  let preferences: PreferencesStore;
  let outbox: OutboxStore;
  beforeEach(async () => {
    ({ preferences, outbox } = await make());
  });

  describe('preferences', () => {
    it('creates the record with every notification on and answers what it was before each patch', async () => {
      expect(await preferences.get(ADA)).toBeNull();
      expect(await preferences.updateReturningBefore(ADA, { backupSuccess: false })).toBeNull();
      expect(await preferences.get(ADA)).toEqual({ ...ALL_ON, backupSuccess: false });
      expect(await preferences.updateReturningBefore(ADA, { agentDisconnection: false })).toEqual({
        ...ALL_ON,
        backupSuccess: false,
      });
      expect(await preferences.get(ADA)).toEqual({
        ...ALL_ON,
        backupSuccess: false,
        agentDisconnection: false,
      });
      expect(await preferences.get(GRACE)).toBeNull();
      await preferences.remove(ADA);
      expect(await preferences.get(ADA)).toBeNull();
    });

    it('numbers toggle changes and keeps the latest pending until that very change is announced', async () => {
      expect(await preferences.noteToggleChange(ADA)).toBeNull();
      await preferences.updateReturningBefore(ADA, { backupFailure: false });
      await preferences.updateReturningBefore(GRACE, {});
      expect(await preferences.noteToggleChange(ADA)).toBe(1);
      expect(await preferences.noteToggleChange(ADA)).toBe(2);
      expect(await preferences.unannounced(10)).toEqual([
        { userId: ADA, version: 2, preferences: { ...ALL_ON, backupFailure: false } },
      ]);
      await preferences.markAnnounced(ADA, 1);
      expect((await preferences.unannounced(10)).map((c) => c.version)).toEqual([2]);
      await preferences.markAnnounced(ADA, 2);
      expect(await preferences.unannounced(10)).toEqual([]);
    });

    it('answers at most `limit` unannounced changes', async () => {
      for (const u of [ADA, GRACE, 'c'.repeat(24)]) {
        await preferences.updateReturningBefore(u, {});
        await preferences.noteToggleChange(u);
      }
      expect(await preferences.unannounced(2)).toHaveLength(2);
    });

    it('gives one test-mail slot per window, even to a user without a record, and takes it back', async () => {
      expect(await preferences.takeTestSlot(ADA, at(0), at(-1))).toBe(true);
      expect(await preferences.get(ADA)).toEqual(ALL_ON);
      expect(await preferences.takeTestSlot(ADA, at(0.5), at(-0.5))).toBe(false);
      // Another time than the slot's own gives nothing back.
      await preferences.releaseTestSlot(ADA, at(0.5));
      expect(await preferences.takeTestSlot(ADA, at(0.5), at(-0.5))).toBe(false);
      await preferences.releaseTestSlot(ADA, at(0));
      expect(await preferences.takeTestSlot(ADA, at(0.5), at(-0.5))).toBe(true);
      // The last test was exactly at notBefore: the window has passed.
      expect(await preferences.takeTestSlot(ADA, at(2), at(0.5))).toBe(true);
    });

    describe('a notification address waiting for confirmation', () => {
      const pending = (email: string, tokenHash: string, sentAt = at(0)) => ({
        email,
        tokenHash,
        sentAt,
        expiresAt: new Date(sentAt.getTime() + 60 * 60_000),
      });

      it('is kept, found by its token, and replaced by a later one', async () => {
        expect(await preferences.pendingEmail(ADA)).toBeNull();
        expect(await preferences.setPendingEmail(ADA, pending('a@example.com', 'hash-1'), at(-1))).toBe(true);
        expect(await preferences.pendingEmail(ADA)).toEqual({
          email: 'a@example.com',
          sentAt: at(0),
          expiresAt: at(60),
        });
        expect(await preferences.byEmailToken('hash-1')).toEqual({
          userId: ADA,
          email: 'a@example.com',
          sentAt: at(0),
          expiresAt: at(60),
          current: null,
        });
        // Too soon for another mail.
        expect(
          await preferences.setPendingEmail(ADA, pending('b@example.com', 'hash-2', at(1)), at(-0.5)),
        ).toBe(false);
        expect(await preferences.setPendingEmail(ADA, pending('b@example.com', 'hash-2', at(2)), at(0))).toBe(
          true,
        );
        expect(await preferences.byEmailToken('hash-1')).toBeNull();
        expect((await preferences.byEmailToken('hash-2'))?.email).toBe('b@example.com');
      });

      it('becomes the address once, with its current unexpired token only', async () => {
        await preferences.setPendingEmail(ADA, pending('a@example.com', 'hash-1'), at(-1));
        const claim = { userId: ADA, tokenHash: 'hash-1', email: 'a@example.com' };
        expect(await preferences.confirmPendingEmail({ ...claim, tokenHash: 'hash-x' }, at(1))).toBe(false);
        expect(await preferences.confirmPendingEmail({ ...claim, email: 'x@example.com' }, at(1))).toBe(
          false,
        );
        expect(await preferences.confirmPendingEmail(claim, at(60))).toBe(false);
        expect(await preferences.confirmPendingEmail(claim, at(1))).toBe(true);
        expect(await preferences.confirmPendingEmail(claim, at(1))).toBe(false);
        expect(await preferences.get(ADA)).toEqual({ ...ALL_ON, email: 'a@example.com' });
        expect(await preferences.pendingEmail(ADA)).toBeNull();
        expect(await preferences.byEmailToken('hash-1')).toBeNull();

        await preferences.setPendingEmail(ADA, pending('b@example.com', 'hash-2', at(10)), at(5));
        expect((await preferences.byEmailToken('hash-2'))?.current).toBe('a@example.com');
      });

      it('is dropped on cancel, and its send time still holds off another mail', async () => {
        await preferences.setPendingEmail(ADA, pending('a@example.com', 'hash-1'), at(-1));
        await preferences.clearPendingEmail(ADA);
        expect(await preferences.pendingEmail(ADA)).toBeNull();
        expect(await preferences.byEmailToken('hash-1')).toBeNull();
        expect(
          await preferences.setPendingEmail(ADA, pending('a@example.com', 'hash-2', at(1)), at(-0.5)),
        ).toBe(false);
        await preferences.clearPendingEmail(GRACE);
        expect(await preferences.get(GRACE)).toBeNull();
      });
    });
  });

  describe('outbox', () => {
    const record = (eventId: string, over: Partial<OutboxRecord> = {}): OutboxRecord => ({
      eventId,
      userId: ADA,
      kind: 'backup-failed',
      to: 'ada@example.com',
      status: 'sending',
      lockedUntil: at(1),
      attempts: 1,
      createdAt: at(0),
      ...over,
    });
    const untouched = { lastError: null, messageId: null, sentAt: null };

    it('keeps one record per event and answers it as written', async () => {
      expect(await outbox.insert(record('e1'))).toBe(true);
      expect(await outbox.insert(record('e1', { to: 'other@example.com' }))).toBe(false);
      expect(stored(await outbox.find('e1'))).toEqual({ ...record('e1'), ...untouched });
      expect(await outbox.find('e2')).toBeNull();
    });

    it('lets a record be claimed only once its lock has lapsed, and only while sending', async () => {
      await outbox.insert(record('e1'));
      expect(await outbox.claim('e1', at(0.5), at(2))).toBe(false);
      expect(await outbox.claim('e1', at(1), at(2))).toBe(true);
      expect(await outbox.claim('e1', at(1), at(3))).toBe(false);
      expect(stored(await outbox.find('e1'))).toMatchObject({ lockedUntil: at(2), attempts: 2 });
      await outbox.markSent('e1', '<m1@test>', at(1.5));
      expect(await outbox.claim('e1', at(9), at(10))).toBe(false);
      expect(await outbox.claim('missing', at(9), at(10))).toBe(false);
    });

    it('records the outcome: the error of a failed try, then the message id of the sent mail', async () => {
      await outbox.insert(record('e1'));
      await outbox.release('e1', 'connection refused', at(0.5));
      expect(stored(await outbox.find('e1'))).toMatchObject({
        status: 'sending',
        lockedUntil: at(0.5),
        lastError: 'connection refused',
      });
      await outbox.markSent('e1', '<m1@test>', at(1));
      expect(stored(await outbox.find('e1'))).toEqual({
        ...record('e1', { status: 'sent', lockedUntil: at(0.5) }),
        messageId: '<m1@test>',
        sentAt: at(1),
        lastError: null,
      });
    });

    it('keeps the first 500 characters of a failure', async () => {
      await outbox.insert(record('e1'));
      await outbox.markFailed('e1', 'x'.repeat(600));
      expect(stored(await outbox.find('e1'))).toMatchObject({ status: 'failed', lastError: 'x'.repeat(500) });
      await outbox.insert(record('e2'));
      await outbox.release('e2', 'y'.repeat(600), at(0));
      expect(stored(await outbox.find('e2'))!.lastError).toBe('y'.repeat(500));
    });

    it("forgets a deleted account's addresses, fails its unsent mails and remembers that it did", async () => {
      await outbox.insert(record('sent'));
      await outbox.markSent('sent', '<m@test>', at(0.5));
      await outbox.insert(record('unsent'));
      await outbox.insert(record('grace', { userId: GRACE, to: 'grace@example.com' }));
      expect(await outbox.forgotten(ADA)).toBe(false);
      await outbox.forgetUser(ADA, at(2));
      await outbox.forgetUser(ADA, at(3));
      expect(await outbox.forgotten(ADA)).toBe(true);
      expect(await outbox.forgotten(GRACE)).toBe(false);
      expect(stored(await outbox.find('sent'))).toMatchObject({ status: 'sent', to: FORGOTTEN });
      expect(stored(await outbox.find('unsent'))).toMatchObject({
        status: 'failed',
        to: FORGOTTEN,
        lastError: 'account deleted',
      });
      expect(stored(await outbox.find('grace'))).toMatchObject({
        status: 'sending',
        to: 'grace@example.com',
      });
      expect(stored(await outbox.find(`account-deleted:${ADA}`))).toEqual({
        eventId: `account-deleted:${ADA}`,
        userId: ADA,
        kind: 'account-deleted',
        to: FORGOTTEN,
        status: 'failed',
        lockedUntil: at(2),
        attempts: 1,
        createdAt: at(2),
        lastError: 'account deleted',
        messageId: null,
        sentAt: null,
      });
    });

    it('prunes records created before the cut and tells how many went', async () => {
      await outbox.insert(record('old', { createdAt: at(0) }));
      await outbox.insert(record('edge', { createdAt: at(5) }));
      await outbox.insert(record('new', { createdAt: at(9) }));
      expect(await outbox.prune(at(5))).toBe(1);
      expect(await outbox.find('old')).toBeNull();
      expect(await outbox.find('edge')).not.toBeNull();
      expect(await outbox.prune(at(5))).toBe(0);
    });
  });
});
