import { isOlderThan } from '@coffer/common';
import type { AuditStore, NewAuditEntry, StoredAuditEntry } from './store.js';

/** In-memory AuditStore for unit tests, with the same unique key (eventId, action) and ordering. */
export function fakeAuditStore(): AuditStore & { all: StoredAuditEntry[] } {
  const all: StoredAuditEntry[] = [];
  let seq = 0;
  return {
    all,
    async insert(entry: NewAuditEntry) {
      if (all.some((e) => e.eventId === entry.eventId && e.action === entry.action)) return false;
      all.push({ ...entry, id: String(++seq).padStart(24, '0') });
      return true;
    },
    async page(filter, start, limit) {
      const matching = all
        .filter((e) => e.userId === filter.userId && (!filter.action || e.action === filter.action))
        .sort((a, b) => b.timestamp.getTime() - a.timestamp.getTime() || b.id.localeCompare(a.id));
      const skip =
        typeof start === 'number'
          ? start
          : matching.filter((e) => !isOlderThan({ createdAt: e.timestamp, id: e.id }, start)).length;
      return { entries: matching.slice(skip, skip + limit), total: matching.length, newer: skip };
    },
    async get(id) {
      const e = all.find((x) => x.id === id);
      return e ? { userId: e.userId, createdAt: e.timestamp, id: e.id } : null;
    },
    async distinctActions(userId) {
      return [...new Set(all.filter((e) => e.userId === userId).map((e) => e.action))];
    },
    async removeByUser(userId) {
      const before = all.length;
      all.splice(0, all.length, ...all.filter((e) => e.userId !== userId));
      return before - all.length;
    },
    async isDeletedUser(userId) {
      return all.some((e) => e.action === 'USER_DELETED' && e.entityId === userId);
    },
  };
}
