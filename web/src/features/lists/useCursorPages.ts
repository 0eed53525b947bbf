import { useCallback, useState } from 'react';

/**
 * Previous/Next over a list paged by cursor (`before`, the last id of the page shown): Next asks
 * for the rows older than that one instead of skipping a count, so rows written between pages
 * neither repeat nor shift; Previous goes back to the cursor before. `before` is undefined on the
 * first page, `depth` how many pages in the user is.
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<string[]>([]);
  const next = useCallback((lastId: string) => setCursors((c) => [...c, lastId]), []);
  const back = useCallback(() => setCursors((c) => c.slice(0, -1)), []);
  const reset = useCallback(() => setCursors([]), []);
  return { before: cursors.at(-1), depth: cursors.length, next, back, reset };
}
