import {
  FORGOTTEN,
  type OutboxRecord,
  type OutboxStore,
  type PreferencesRecord,
  type PreferencesStore,
} from './store.js';
import { DEFAULT_PREFERENCES } from './domain/preferences.js';

type StoredOutbox = OutboxRecord & { messageId?: string; lastError?: string; sentAt?: Date };

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
      records.set(rec.eventId, { ...rec });
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
      patch(eventId, { status: 'sent', messageId, sentAt: at });
    },
    async markFailed(eventId, error) {
      patch(eventId, { status: 'failed', lastError: error });
    },
    async release(eventId, error, now) {
      patch(eventId, { lockedUntil: now, lastError: error });
    },
    async forgetUser(userId) {
      for (const [k, r] of records) {
        if (r.userId !== userId) continue;
        records.set(k, { ...r, to: FORGOTTEN, status: r.status === 'sending' ? 'failed' : r.status });
      }
    },
    async prune(before) {
      let n = 0;
      for (const [k, r] of records) if (r.createdAt < before && records.delete(k)) n++;
      return n;
    },
  };
}

/** In-memory preferences for unit tests. */
export function fakePreferencesStore(): PreferencesStore & {
  docs: Map<string, PreferencesRecord & { lastTestSentAt: Date | null }>;
} {
  const docs = new Map<string, PreferencesRecord & { lastTestSentAt: Date | null }>();
  const doc = (userId: string) => docs.get(userId) ?? { ...DEFAULT_PREFERENCES, lastTestSentAt: null };
  const shape = ({ lastTestSentAt: _l, ...p }: PreferencesRecord & { lastTestSentAt: Date | null }) => p;
  return {
    docs,
    async get(userId) {
      const d = docs.get(userId);
      return d ? shape(d) : null;
    },
    async upsert(userId, p) {
      docs.set(userId, { ...doc(userId), ...p });
      return shape(docs.get(userId)!);
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
