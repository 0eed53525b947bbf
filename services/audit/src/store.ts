import { olderThan, type PageCursor } from '@coffer/common';
import { isObjectId } from '@coffer/contracts';
import type { AuditModels } from './model.js';
import type { AuditAction, AuditDetails, AuditEntity } from './domain/actions.js';

const DUPLICATE_KEY = 11000;
const isDuplicate = (err: unknown) => (err as { code?: number })?.code === DUPLICATE_KEY;

export interface NewAuditEntry {
  userId: string;
  eventId: string;
  action: AuditAction;
  entity: AuditEntity;
  entityId: string | undefined;
  actor: string;
  details: AuditDetails;
  timestamp: Date;
}

export interface StoredAuditEntry extends Omit<NewAuditEntry, 'action' | 'entity'> {
  id: string;
  action: string;
  entity: string;
}

/**
 * Data access for audit entries, the only code that touches mongoose. The domain receives the
 * methods it uses, so unit tests hand in an in-memory fake.
 */
export function auditStore({ AuditEntry }: AuditModels) {
  return {
    /** Writes the entry; false when the same event already wrote this action (a redelivery). */
    async insert(entry: NewAuditEntry): Promise<boolean> {
      try {
        await AuditEntry.create({ ...entry, entityId: entry.entityId ?? null });
        return true;
      } catch (err) {
        if (isDuplicate(err)) return false;
        throw err;
      }
    },

    /**
     * One page of a user's entries, newest first (ties broken by insertion order): after `start`
     * entries, or older than the cursor `start` (services/common/src/paging.ts). `newer` counts the
     * entries before the page, so a cursor page knows its number.
     */
    async page(
      filter: { userId: string; action?: string },
      start: number | PageCursor,
      limit: number,
    ): Promise<{ entries: StoredAuditEntry[]; total: number; newer: number }> {
      const query = filter.action
        ? { userId: filter.userId, action: filter.action }
        : { userId: filter.userId };
      const older = typeof start === 'number' ? query : { ...query, ...olderThan(start, 'timestamp') };
      const [docs, total, remaining] = await Promise.all([
        AuditEntry.find(older)
          .sort({ timestamp: -1, _id: -1 })
          .skip(typeof start === 'number' ? start : 0)
          .limit(limit)
          .lean(),
        AuditEntry.countDocuments(query),
        typeof start === 'number' ? undefined : AuditEntry.countDocuments(older),
      ]);
      const entries = docs.map((d) => ({
        id: d._id.toString(),
        userId: d.userId,
        eventId: d.eventId,
        action: d.action,
        entity: d.entity,
        entityId: d.entityId ?? undefined,
        actor: d.actor,
        details: (d.details ?? {}) as AuditDetails,
        timestamp: d.timestamp,
      }));
      return { entries, total, newer: remaining === undefined ? (start as number) : total - remaining };
    },

    /** The owner and time of one entry, where a cursor page starts (paging.ts cursorOf). */
    async get(id: string): Promise<{ userId: string; createdAt: Date; id: string } | null> {
      if (!isObjectId(id)) return null;
      const d = await AuditEntry.findById(id, { userId: 1, timestamp: 1 }).lean();
      return d && { userId: d.userId, createdAt: d.timestamp, id: d._id.toString() };
    },

    async distinctActions(userId: string): Promise<string[]> {
      return AuditEntry.distinct('action', { userId });
    },

    /** Removes a deleted user's own log; resolves to how many entries went. */
    async removeByUser(userId: string): Promise<number> {
      return (await AuditEntry.deleteMany({ userId })).deletedCount;
    },

    /** Whether an admin's USER_DELETED entry names this user (the account is gone). */
    async isDeletedUser(userId: string): Promise<boolean> {
      return (await AuditEntry.exists({ action: 'USER_DELETED', entityId: userId })) !== null;
    },
  };
}
export type AuditStore = ReturnType<typeof auditStore>;
