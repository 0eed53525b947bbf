// Older pages of the lists that grow (GET /api/backups and the restore history with `limit` and
// `before`, architecture.md "Queries and their indexes"). The generated endpoints keep the plain
// call, the newest rows, which realtime events update in place; a page is fetched once, as the
// user scrolls past the rows already shown, and is not cached.
import { api } from './cache';
import type { Backup, Restore } from './generated';

export interface PageArg {
  before: string;
  limit: number;
}

export const pagesApi = api.injectEndpoints({
  endpoints: (build) => ({
    getBackupsPage: build.query<Backup[], PageArg>({
      query: (params) => ({ url: '/api/backups', params }),
      keepUnusedDataFor: 0,
    }),
    getRestoresPage: build.query<Restore[], PageArg>({
      query: (params) => ({ url: '/api/backups/restores/all', params }),
      keepUnusedDataFor: 0,
    }),
  }),
});

export const { useLazyGetBackupsPageQuery, useLazyGetRestoresPageQuery } = pagesApi;
