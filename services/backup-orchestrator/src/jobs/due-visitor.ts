import { dueBucket } from '../domain/due-bucket.js';

/** A record filed by due time (domain/due-bucket.ts); `key` orders it within its bucket. */
export interface DueRow {
  key: string;
  dueAt: Date | null;
  dueBucket: number | null;
}

/** What a handler made of a due row: done with it (it set its next due time), or it is still due. */
export type DueVerdict = 'handled' | 'waiting';

/** A tick that fell this many buckets behind (the process stalled) starts over with `catchUp`. */
const MAX_BUCKETS_BEHIND = 24 * 60;
const PAGE = 500;

/**
 * Visits what is due, bucket by bucket, from the last bucket this process visited to now's: so a
 * tick reads what came due since the previous one, never every record. On the first tick (and
 * after a long stall) `catchUp` files what is overdue or was never filed under now's bucket: the
 * one pass that reads the whole collection, once per process start. A row still due after its
 * handler (waiting for a worker or an agent) moves to now's bucket so the next tick sees it again.
 */
export function dueVisitor<R extends DueRow>(deps: {
  /** Up to `limit` rows of the bucket with a key after `after`, by key. */
  page(bucket: number, after: string | null, limit: number): Promise<R[]>;
  /** Files every overdue or never-filed row under `now`'s bucket. */
  catchUp(now: Date): Promise<void>;
  /** Files the row under `now`'s bucket (it is still due). */
  refile(row: R, now: Date): Promise<void>;
}) {
  let visited: number | undefined;
  return {
    /**
     * Hands each row due at `now` to `handle`; stops early (resuming there next time) when
     * `budgetLeft` says no more fits in this tick.
     */
    async visit(
      now: Date,
      handle: (row: R) => Promise<DueVerdict>,
      budgetLeft: () => boolean,
    ): Promise<void> {
      const current = dueBucket(now);
      if (visited === undefined || current - visited > MAX_BUCKETS_BEHIND) {
        await deps.catchUp(now);
        visited = current;
      }
      // One bucket further back than visited: a replica whose clock is a little behind may have filed
      // something there after this one's last visit.
      for (let bucket = Math.min(visited, current) - 1; bucket <= current; bucket++) {
        let after: string | null = null;
        for (;;) {
          const rows = await deps.page(bucket, after, PAGE);
          for (const row of rows) {
            if (!budgetLeft()) {
              visited = bucket;
              return;
            }
            after = row.key;
            // Later in the current minute: the next tick comes back to this bucket.
            if (!row.dueAt || row.dueAt > now) continue;
            const verdict = await handle(row);
            if (verdict === 'waiting' && bucket < current) await deps.refile(row, now);
          }
          if (rows.length < PAGE) break;
        }
      }
      visited = current;
    },
  };
}
