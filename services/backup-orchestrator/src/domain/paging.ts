import { notFound } from '@coffer/common';
import type { PageCursor } from '../store/types.js';

/** One page of a list that grows: at most `limit` rows, those older than the row `before` names. */
export interface Page {
  limit?: number;
  before?: string;
}

/**
 * Where a page starts: the (createdAt, id) of the caller's row `before` names, the last row of
 * the page before. A row that is gone (or another user's) is a 404: the list is loaded again.
 */
export async function cursorOf(
  store: { get(id: string): Promise<{ userId: string; createdAt: Date; id: string } | null> },
  userId: string,
  before: string | undefined,
  what: string,
): Promise<PageCursor | undefined> {
  if (before === undefined) return undefined;
  const row = await store.get(before);
  if (!row || row.userId !== userId)
    throw notFound(`That ${what} is no longer in your list: load the list again`);
  return { createdAt: row.createdAt, id: row.id };
}
