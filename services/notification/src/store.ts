import type { NotificationModels } from './model.js';

const DUPLICATE_KEY = 11000;
/** Stands in for the address of a deleted account in its outbox records. */
export const FORGOTTEN = '(deleted account)';
/** The outbox record that says an account was deleted (kept, then pruned, like the others). */
const forgottenId = (userId: string) => `account-deleted:${userId}`;
const isDuplicate = (err: unknown) => (err as { code?: number })?.code === DUPLICATE_KEY;

export interface PreferencesRecord {
  backupSuccess: boolean;
  backupFailure: boolean;
  agentDisconnection: boolean;
  email: string | null;
}
export type PreferencesPatch = Partial<PreferencesRecord>;

/** A toggle change whose settings.notifications.updated event may not be published yet. */
export interface UnannouncedChange {
  userId: string;
  version: number;
  preferences: PreferencesRecord;
}

/** A notification address waiting for confirmation (the link's token is kept only as its hash). */
export interface PendingEmail {
  email: string;
  expiresAt: Date;
  sentAt: Date;
}

/** What a confirmation link's token points at. */
export interface PendingEmailClaim extends PendingEmail {
  userId: string;
  /** Where notifications go now (null: the account address). */
  current: string | null;
}

export type OutboxStatus = 'sending' | 'sent' | 'failed';
export interface OutboxRecord {
  eventId: string;
  userId: string;
  kind: string;
  to: string;
  status: OutboxStatus;
  lockedUntil: Date;
  attempts: number;
  createdAt: Date;
}

/**
 * Data access, the only code that touches mongoose. Each method is one single-document operation
 * (FerretDB has no transactions); the domain gets the methods it uses, so tests hand in fakes.
 */
export function preferencesStore({ Preferences }: Pick<NotificationModels, 'Preferences'>) {
  const shape = (d: Omit<PreferencesRecord, 'email'> & { email?: string | null }): PreferencesRecord => ({
    backupSuccess: d.backupSuccess,
    backupFailure: d.backupFailure,
    agentDisconnection: d.agentDisconnection,
    email: d.email ?? null,
  });
  return {
    async get(userId: string): Promise<PreferencesRecord | null> {
      const d = await Preferences.findOne({ userId }).lean();
      return d ? shape(d) : null;
    },

    /**
     * Applies the patch (creating the record if needed) and returns the record as it was just
     * before (null: there was none). One atomic operation, so the caller knows exactly what this
     * call changed even when others update the same user at the same time.
     */
    async updateReturningBefore(userId: string, patch: PreferencesPatch): Promise<PreferencesRecord | null> {
      const d = await Preferences.findOneAndUpdate(
        { userId },
        { $set: patch },
        { upsert: true, new: false, setDefaultsOnInsert: true },
      ).lean();
      return d ? shape(d) : null;
    },

    /**
     * Notes a toggle change that must be published: bumps the user's change number and marks it
     * pending. Returns the number, or null when the user has no record (deleted meanwhile).
     */
    async noteToggleChange(userId: string): Promise<number | null> {
      const d = await Preferences.findOneAndUpdate(
        { userId },
        { $inc: { notificationsVersion: 1 }, $set: { notificationsPending: true } },
        { new: true },
      ).lean();
      return d ? d.notificationsVersion : null;
    },

    /** The change numbered `version` is published; a newer change stays pending. */
    async markAnnounced(userId: string, version: number): Promise<void> {
      await Preferences.updateOne(
        { userId, notificationsVersion: version },
        { $set: { notificationsPending: false } },
      );
    },

    /** Users whose latest toggle change may not be published yet. */
    async unannounced(limit: number): Promise<UnannouncedChange[]> {
      const docs = await Preferences.find({ notificationsPending: true }).limit(limit).lean();
      return docs.map((d) => ({ userId: d.userId, version: d.notificationsVersion, preferences: shape(d) }));
    },

    async remove(userId: string): Promise<void> {
      await Preferences.deleteOne({ userId });
    },

    /**
     * Records a test mail at `now` unless the last one was after `notBefore`; false means too soon.
     * One conditional upsert: two concurrent clicks cannot both pass.
     */
    async takeTestSlot(userId: string, now: Date, notBefore: Date): Promise<boolean> {
      try {
        await Preferences.findOneAndUpdate(
          { userId, $or: [{ lastTestSentAt: null }, { lastTestSentAt: { $lte: notBefore } }] },
          { $set: { lastTestSentAt: now } },
          { upsert: true, setDefaultsOnInsert: true },
        );
        return true;
      } catch (err) {
        // The user's document exists with a recent test: the upsert tried a second insert.
        if (isDuplicate(err)) return false;
        throw err;
      }
    },

    /**
     * Keeps `pending` as the address waiting for confirmation, replacing any earlier one (whose
     * link stops working). False when a confirmation mail went out after `notBefore` (too soon for
     * another). One conditional upsert, like takeTestSlot.
     */
    async setPendingEmail(
      userId: string,
      pending: PendingEmail & { tokenHash: string },
      notBefore: Date,
    ): Promise<boolean> {
      try {
        await Preferences.findOneAndUpdate(
          { userId, $or: [{ pendingEmailSentAt: null }, { pendingEmailSentAt: { $lte: notBefore } }] },
          {
            $set: {
              pendingEmail: pending.email,
              pendingEmailTokenHash: pending.tokenHash,
              pendingEmailExpiresAt: pending.expiresAt,
              pendingEmailSentAt: pending.sentAt,
            },
          },
          { upsert: true, setDefaultsOnInsert: true },
        );
        return true;
      } catch (err) {
        if (isDuplicate(err)) return false;
        throw err;
      }
    },

    async pendingEmail(userId: string): Promise<PendingEmail | null> {
      const d = await Preferences.findOne({ userId }).lean();
      if (!d?.pendingEmail || !d.pendingEmailExpiresAt || !d.pendingEmailSentAt) return null;
      return { email: d.pendingEmail, expiresAt: d.pendingEmailExpiresAt, sentAt: d.pendingEmailSentAt };
    },

    async byEmailToken(tokenHash: string): Promise<PendingEmailClaim | null> {
      const d = await Preferences.findOne({ pendingEmailTokenHash: tokenHash }).lean();
      if (!d?.pendingEmail || !d.pendingEmailExpiresAt || !d.pendingEmailSentAt) return null;
      return {
        userId: d.userId,
        email: d.pendingEmail,
        expiresAt: d.pendingEmailExpiresAt,
        sentAt: d.pendingEmailSentAt,
        current: d.email ?? null,
      };
    },

    /**
     * Makes the pending address the notification address, only while this token is the current,
     * unexpired one for exactly that address; false otherwise (used, replaced or expired meanwhile).
     * One conditional write, so a link works once even when opened twice at the same moment.
     */
    async confirmPendingEmail(claim: { userId: string; tokenHash: string; email: string }, now: Date) {
      const res = await Preferences.updateOne(
        {
          userId: claim.userId,
          pendingEmailTokenHash: claim.tokenHash,
          pendingEmail: claim.email,
          pendingEmailExpiresAt: { $gt: now },
        },
        {
          $set: {
            email: claim.email,
            pendingEmail: null,
            pendingEmailTokenHash: null,
            pendingEmailExpiresAt: null,
          },
        },
      );
      return res.modifiedCount === 1;
    },

    /** Drops the pending address; its send time stays, so cancel-and-ask-again cannot flood a mailbox. */
    async clearPendingEmail(userId: string): Promise<void> {
      await Preferences.updateOne(
        { userId },
        {
          $set: {
            pendingEmail: null,
            pendingEmailTokenHash: null,
            pendingEmailExpiresAt: null,
          },
        },
      );
    },

    /** Gives the slot back when the mail could not be sent, so the user can retry at once. */
    async releaseTestSlot(userId: string, takenAt: Date): Promise<void> {
      await Preferences.updateOne({ userId, lastTestSentAt: takenAt }, { $set: { lastTestSentAt: null } });
    },
  };
}
export type PreferencesStore = ReturnType<typeof preferencesStore>;

export function outboxStore({ Outbox }: Pick<NotificationModels, 'Outbox'>) {
  return {
    /** Creates the record; false when one for this event exists already. */
    async insert(rec: OutboxRecord): Promise<boolean> {
      try {
        await Outbox.create(rec);
        return true;
      } catch (err) {
        if (isDuplicate(err)) return false;
        throw err;
      }
    },

    async find(eventId: string): Promise<OutboxRecord | null> {
      return Outbox.findOne({ eventId }).lean<OutboxRecord>();
    },

    /** Takes over an unsent record whose previous claim lapsed; false when someone holds it. */
    async claim(eventId: string, now: Date, lockedUntil: Date): Promise<boolean> {
      const res = await Outbox.updateOne(
        { eventId, status: 'sending', lockedUntil: { $lte: now } },
        { $set: { lockedUntil }, $inc: { attempts: 1 } },
      );
      return res.modifiedCount === 1;
    },

    async markSent(eventId: string, messageId: string, at: Date): Promise<void> {
      await Outbox.updateOne(
        { eventId },
        { $set: { status: 'sent', messageId, sentAt: at, lastError: null } },
      );
    },

    async markFailed(eventId: string, error: string): Promise<void> {
      await Outbox.updateOne({ eventId }, { $set: { status: 'failed', lastError: error.slice(0, 500) } });
    },

    /** Drops the claim after a failed attempt so the redelivered event can try again at once. */
    async release(eventId: string, error: string, now: Date): Promise<void> {
      await Outbox.updateOne({ eventId }, { $set: { lockedUntil: now, lastError: error.slice(0, 500) } });
    },

    /**
     * Drops a deleted account's addresses but keeps the records: they still stop a replayed event
     * from mailing again. Mails not yet sent never will be. A record saying so comes first, so that
     * a mail on its way meanwhile finds it (`forgotten`) and drops its address too.
     */
    async forgetUser(userId: string, now = new Date()): Promise<void> {
      try {
        await Outbox.create({
          eventId: forgottenId(userId),
          userId,
          kind: 'account-deleted',
          to: FORGOTTEN,
          status: 'failed',
          lockedUntil: now,
          lastError: 'account deleted',
          createdAt: now,
        });
      } catch (err) {
        if (!isDuplicate(err)) throw err;
      }
      await Outbox.updateMany(
        { userId, status: 'sending' },
        { $set: { status: 'failed', lastError: 'account deleted' } },
      );
      await Outbox.updateMany({ userId }, { $set: { to: FORGOTTEN } });
    },

    /** Whether the account was deleted (forgetUser ran for it). */
    async forgotten(userId: string): Promise<boolean> {
      return (await Outbox.exists({ eventId: forgottenId(userId) })) !== null;
    },

    /** Deletes records older than `before` (long after JetStream could redeliver their event). */
    async prune(before: Date): Promise<number> {
      return (await Outbox.deleteMany({ createdAt: { $lt: before } })).deletedCount;
    },
  };
}
export type OutboxStore = ReturnType<typeof outboxStore>;
