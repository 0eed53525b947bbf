import { Types } from 'mongoose';
import { z } from 'zod';
import { notFound } from './errors.js';
import { fields } from './validation.js';

/**
 * Cursor paging of the lists that grow (docs/architecture.md, "Lists that grow are paged"): a page
 * is at most `limit` rows older than the row `before` names, the last one the client has, in
 * (time, _id) descending order. Every service's paged list resolves and filters the same way.
 */
export interface Page {
  limit?: number;
  before?: string;
}

/**
 * A page's fields in a gRPC request (the gateway bounds `limit` tighter for browsers); proto3
 * sends absent optionals as undefined.
 */
export const pageFields = (what: string) => ({
  limit: z.number().int().min(1).max(500).optional(),
  before: fields.objectId(what).optional(),
});

/** Where a page starts: rows older than this one, (createdAt, id) descending. */
export interface PageCursor {
  createdAt: Date;
  id: string;
}

/**
 * Where a page starts: the (createdAt, id) of the row `before` names. A row that is gone, or not
 * `owner`'s (when the list is one owner's), is a 404: the client loads the list again.
 */
export async function cursorOf(
  store: { get(id: string): Promise<{ userId?: string; createdAt: Date; id: string } | null> },
  owner: string | null,
  before: string | undefined,
  what: string,
): Promise<PageCursor | undefined> {
  if (before === undefined) return undefined;
  const row = await store.get(before);
  if (!row || (owner !== null && row.userId !== owner))
    throw notFound(`That ${what} is no longer in your list: load the list again`);
  return { createdAt: row.createdAt, id: row.id };
}

/**
 * The mongo filter for rows after `before` in (`timeField`, _id) descending order. Put beside an
 * indexed equality (one user's rows): FerretDB on PostgreSQL pushes down only that equality, so
 * the range runs over those rows; MongoDB answers all of it from `{equality, timeField↓}`.
 */
export function olderThan(before: PageCursor | undefined, timeField = 'createdAt'): Record<string, unknown> {
  if (!before) return {};
  return {
    $or: [
      { [timeField]: { $lt: before.createdAt } },
      { [timeField]: before.createdAt, _id: { $lt: new Types.ObjectId(before.id) } },
    ],
  };
}

/** The same order for in-memory stores: is `row` after `before` in (createdAt, id) descending order? */
export function isOlderThan(row: PageCursor, before: PageCursor | undefined): boolean {
  if (!before) return true;
  return (
    row.createdAt.getTime() < before.createdAt.getTime() ||
    (row.createdAt.getTime() === before.createdAt.getTime() && row.id < before.id)
  );
}
