import { z } from 'zod';
import { fields } from '@coffer/common';

/** Rows one page may hold: the largest page any list serves. */
const MAX_PAGE_LIMIT = 100;
const LIMIT_RULE = `limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}`;

/**
 * Cursor paging of a list that grows: `limit` rows older than the row `before` names (the last
 * one the client has). Without them a list keeps the answer the spec gives.
 */
export const listPage = (what: string) =>
  z.object({
    limit: z.coerce
      .number({ error: LIMIT_RULE })
      .int(LIMIT_RULE)
      .min(1, LIMIT_RULE)
      .max(MAX_PAGE_LIMIT, LIMIT_RULE)
      .optional(),
    before: fields.objectId(what).optional(),
  });
