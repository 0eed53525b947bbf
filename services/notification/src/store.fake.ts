import type { EventMap, EventSubject } from '@coffer/common';
import type { AccountContact } from './accounts.js';
import {
  FORGOTTEN,
  type OutboxRecord,
  type PendingEmail,
  type OutboxStore,
  type PreferencesRecord,
  type PreferencesStore,
} from './store.js';
import { DEFAULT_PREFERENCES } from './domain/preferences.js';

type StoredOutbox = OutboxRecord & {
  messageId: string | null;
  lastError: string | null;
  sentAt: Date | null;
};
/** The collection keeps the start of an error only (model.ts). */
const errorText = (error: string) => error.slice(0, 500);
const ACCOUNT_DELETED = 'account deleted';

/** In-memory outbox for unit tests, unique by event id like the real collection. */
export function fakeOutbox(): OutboxStore & { records: Map<string, StoredOutbox> } {
  const records = new Map<string, StoredOutbox>();
  const patch = (id: string, p: Partial<StoredOutbox>) => {
    const r = records.get(id);
    if (r) records.set(id, { ...r, ...p });
  };
  return {
    records,
    async insert(rec) {
      if (records.has(rec.eventId)) return false;
      records.set(rec.eventId, { lastError: null, messageId: null, sentAt: null, ...rec });
      return true;
    },
    async find(eventId) {
      return records.get(eventId) ?? null;
    },
    async claim(eventId, now, lockedUntil) {
      const r = records.get(eventId);
      if (!r || r.status !== 'sending' || r.lockedUntil > now) return false;
      records.set(eventId, { ...r, lockedUntil, attempts: r.attempts + 1 });
      return true;
    },
    async markSent(eventId, messageId, at) {
      patch(eventId, { status: 'sent', messageId, sentAt: at, lastError: null });
    },
    async markFailed(eventId, error) {
      patch(eventId, { status: 'failed', lastError: errorText(error) });
    },
    async release(eventId, error, now) {
      patch(eventId, { lockedUntil: now, lastError: errorText(error) });
    },
    async forgetUser(userId, now = new Date()) {
      const id = `account-deleted:${userId}`;
      if (!records.has(id))
        records.set(id, {
          eventId: id,
          userId,
          kind: 'account-deleted',
          to: FORGOTTEN,
          status: 'failed',
          lockedUntil: now,
          attempts: 1,
          createdAt: now,
          lastError: ACCOUNT_DELETED,
          messageId: null,
          sentAt: null,
        });
      for (const [k, r] of records) {
        if (r.userId !== userId) continue;
        const unsent = r.status === 'sending';
        records.set(k, {
          ...r,
          to: FORGOTTEN,
          ...(unsent ? { status: 'failed' as const, lastError: ACCOUNT_DELETED } : {}),
        });
      }
    },
    async forgotten(userId) {
      return records.has(`account-deleted:${userId}`);
    },
    async prune(before) {
      let n = 0;
      for (const [k, r] of records) if (r.createdAt < before && records.delete(k)) n++;
      return n;
    },
  };
}

type StoredPreferences = PreferencesRecord & {
  lastTestSentAt: Date | null;
  notificationsVersion: number;
  notificationsPending: boolean;
  pendingEmail?: string | null;
  pendingEmailTokenHash?: string | null;
  pendingEmailExpiresAt?: Date | null;
  pendingEmailSentAt?: Date | null;
};

/** In-memory preferences for unit tests. */
export function fakePreferencesStore(): PreferencesStore & { docs: Map<string, StoredPreferences> } {
  const docs = new Map<string, StoredPreferences>();
  const doc = (userId: string): StoredPreferences =>
    docs.get(userId) ?? {
      ...DEFAULT_PREFERENCES,
      lastTestSentAt: null,
      notificationsVersion: 0,
      notificationsPending: false,
    };
  const shape = (d: StoredPreferences): PreferencesRecord => ({
    backupSuccess: d.backupSuccess,
    backupFailure: d.backupFailure,
    agentDisconnection: d.agentDisconnection,
    email: d.email,
  });
  const pendingOf = (d: StoredPreferences | undefined): PendingEmail | null =>
    d?.pendingEmail && d.pendingEmailExpiresAt && d.pendingEmailSentAt
      ? { email: d.pendingEmail, expiresAt: d.pendingEmailExpiresAt, sentAt: d.pendingEmailSentAt }
      : null;
  const noPending = { pendingEmail: null, pendingEmailTokenHash: null, pendingEmailExpiresAt: null };
  return {
    docs,
    async get(userId) {
      const d = docs.get(userId);
      return d ? shape(d) : null;
    },
    async updateReturningBefore(userId, p) {
      const before = docs.get(userId);
      docs.set(userId, { ...doc(userId), ...p });
      return before ? shape(before) : null;
    },
    async noteToggleChange(userId) {
      const d = docs.get(userId);
      if (!d) return null;
      const version = d.notificationsVersion + 1;
      docs.set(userId, { ...d, notificationsVersion: version, notificationsPending: true });
      return version;
    },
    async markAnnounced(userId, version) {
      const d = docs.get(userId);
      if (d && d.notificationsVersion === version) docs.set(userId, { ...d, notificationsPending: false });
    },
    async unannounced(limit) {
      return [...docs]
        .filter(([, d]) => d.notificationsPending)
        .slice(0, limit)
        .map(([userId, d]) => ({ userId, version: d.notificationsVersion, preferences: shape(d) }));
    },
    async remove(userId) {
      docs.delete(userId);
    },
    async takeTestSlot(userId, now, notBefore) {
      const d = doc(userId);
      if (d.lastTestSentAt && d.lastTestSentAt > notBefore) return false;
      docs.set(userId, { ...d, lastTestSentAt: now });
      return true;
    },
    async setPendingEmail(userId, pending, notBefore) {
      const d = doc(userId);
      if (d.pendingEmailSentAt && d.pendingEmailSentAt > notBefore) return false;
      docs.set(userId, {
        ...d,
        pendingEmail: pending.email,
        pendingEmailTokenHash: pending.tokenHash,
        pendingEmailExpiresAt: pending.expiresAt,
        pendingEmailSentAt: pending.sentAt,
      });
      return true;
    },
    async pendingEmail(userId) {
      return pendingOf(docs.get(userId));
    },
    async byEmailToken(tokenHash) {
      for (const [userId, d] of docs) {
        const p = pendingOf(d);
        if (p && d.pendingEmailTokenHash === tokenHash) return { ...p, userId, current: d.email };
      }
      return null;
    },
    async confirmPendingEmail(claim, now) {
      const d = docs.get(claim.userId);
      if (
        !d ||
        d.pendingEmailTokenHash !== claim.tokenHash ||
        d.pendingEmail !== claim.email ||
        !d.pendingEmailExpiresAt ||
        d.pendingEmailExpiresAt <= now
      )
        return false;
      docs.set(claim.userId, { ...d, email: claim.email, ...noPending });
      return true;
    },
    async clearPendingEmail(userId) {
      const d = docs.get(userId);
      if (d) docs.set(userId, { ...d, ...noPending });
    },
    async releaseTestSlot(userId, takenAt) {
      const d = docs.get(userId);
      if (d && d.lastTestSentAt?.getTime() === takenAt.getTime())
        docs.set(userId, { ...d, lastTestSentAt: null });
    },
  };
}

/** A mailer that records what it was asked to send; `fail` makes the next sends reject. */
export function fakeMailer() {
  const sent: Array<{ to: string; subject: string; text: string; html: string }> = [];
  const m = {
    sent,
    fail: null as Error | null,
    async send(to: string, mail: { subject: string; text: string; html: string }) {
      if (m.fail) throw m.fail;
      sent.push({ to, ...mail });
      return { messageId: `<${sent.length}@test>` };
    },
    close() {},
  };
  return m;
}

/**
 * An event bus that records what was published. Like JetStream it drops a second publish of the
 * same message id; `fail` makes the next publishes reject (NATS unreachable).
 */
export function fakeEventBus() {
  const published: Array<{ id: string; subject: EventSubject; data: unknown }> = [];
  let seq = 0;
  const bus = {
    published,
    fail: null as Error | null,
    async publish<S extends EventSubject>(subject: S, data: EventMap[S], opts?: { id?: string }) {
      if (bus.fail) throw bus.fail;
      const id = opts?.id ?? `generated-${++seq}`;
      if (!published.some((p) => p.id === id)) published.push({ id, subject, data });
    },
  };
  return bus;
}

/** Accounts known by id; unknown ids have no account (deleted). `fail` makes lookups reject. */
export function fakeAccounts(accounts: Record<string, AccountContact> = {}) {
  const a = {
    accounts,
    lookups: 0,
    fail: null as Error | null,
    async contact(userId: string): Promise<AccountContact | null> {
      a.lookups++;
      if (a.fail) throw a.fail;
      return accounts[userId] ?? null;
    },
  };
  return a;
}
