// Progress of a dump or restore, as the agent reports it and browsers show it (spec §3).
import { z } from 'zod';
import { LIMITS } from './limits.js';

export interface ProgressInfo {
  /** Documents processed so far. */
  current: number;
  /** Documents expected (estimated for a backup, exact for a restore). */
  total: number;
  /** 0–100. */
  percentage: number;
  /** Collection being processed, without the database name; '' before the first. */
  collection: string;
}

export const progressSchema = z.object({
  current: z.number().nonnegative(),
  total: z.number().nonnegative(),
  percentage: z.number().min(0).max(100),
  collection: z.string().max(LIMITS.collectionName),
}) satisfies z.ZodType<ProgressInfo>;
