import { useCallback, useEffect, useState } from 'react';
import { LIST_NEWEST } from '@coffer/contracts';
import type { Backup, Restore } from '../../api/generated';
import { useLazyGetBackupsPageQuery, useLazyGetRestoresPageQuery, type PageArg } from '../../api/pages';

/** How many older rows one "load more" fetches. */
export const PAGE_SIZE = 50;

/**
 * The rows older than a list's newest ones (`newest`, the plain call's answer of at most
 * `firstLimit` rows), fetched a page at a time with `fetchPage` when `loadMore` is called. There
 * are more while the last answer was full. A change to the newest rows' last id starts over.
 */
export function useOlderPages<T extends { _id: string }>(
  newest: readonly T[] | undefined,
  firstLimit: number,
  fetchPage: (arg: PageArg) => Promise<T[]>,
) {
  const [older, setOlder] = useState<T[]>([]);
  const [lastFull, setLastFull] = useState(true);
  const [loading, setLoading] = useState(false);
  const [failed, setFailed] = useState(false);
  const anchor = newest?.[newest.length - 1]?._id;
  useEffect(() => {
    setOlder([]);
    setLastFull(true);
    setFailed(false);
  }, [anchor]);

  const hasMore = newest !== undefined && newest.length >= firstLimit && lastFull;
  const before = older.length ? older[older.length - 1]!._id : anchor;
  const loadMore = useCallback(() => {
    if (!hasMore || loading || !before) return;
    setLoading(true);
    setFailed(false);
    fetchPage({ before, limit: PAGE_SIZE })
      .then((page) => {
        // A row can appear twice when a newer one was deleted meanwhile: keep the first.
        setOlder((prev) => [...prev, ...page.filter((r) => !prev.some((p) => p._id === r._id))]);
        setLastFull(page.length === PAGE_SIZE);
      })
      .catch(() => setFailed(true))
      .finally(() => setLoading(false));
  }, [hasMore, loading, before, fetchPage]);

  return { older, hasMore, loading, failed, loadMore };
}

/** The dashboard's backups older than the newest LIST_NEWEST.backups. */
export function useOlderBackups(newest: readonly Backup[] | undefined) {
  const [fetchPage] = useLazyGetBackupsPageQuery();
  return useOlderPages(
    newest,
    LIST_NEWEST.backups,
    useCallback((arg: PageArg) => fetchPage(arg).unwrap(), [fetchPage]),
  );
}

/** The restore history's restores older than the newest LIST_NEWEST.restores. */
export function useOlderRestores(newest: readonly Restore[] | undefined) {
  const [fetchPage] = useLazyGetRestoresPageQuery();
  return useOlderPages(
    newest,
    LIST_NEWEST.restores,
    useCallback((arg: PageArg) => fetchPage(arg).unwrap(), [fetchPage]),
  );
}
