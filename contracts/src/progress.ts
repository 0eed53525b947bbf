// Progress of a dump or restore, as the agent reports it and browsers show it (product §3).
import { z } from 'zod';
import { LIMITS } from './limits.js';

export interface ProgressInfo {
  /** Documents processed so far. */
  current: number;
  /**
   * Documents expected. A backup counts each collection from the database's statistics until the
   * collection has been dumped, then from the dump; a restore knows the exact count up front.
   */
  total: number;
  /** 0–100; 100 only once the job's documents are all done. */
  percentage: number;
  /** Collection being processed, without the database name; '' before the first. */
  collection: string;
  /**
   * True while `total` still rests on statistics for a collection not yet dumped (the dashboard
   * says "about"). Absent from older agents, whose totals were always statistics.
   */
  estimated?: boolean;
}

export const progressSchema = z.object({
  current: z.number().nonnegative(),
  total: z.number().nonnegative(),
  percentage: z.number().min(0).max(100),
  collection: z.string().max(LIMITS.collectionName),
  estimated: z.boolean().optional(),
}) satisfies z.ZodType<ProgressInfo>;
