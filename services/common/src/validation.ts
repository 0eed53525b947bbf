import { z } from 'zod';
import { GFS_MAX_COUNT, GFS_PERIODS, objectId, safeText, type GfsPeriod } from '@coffer/contracts';
import { badInput } from './errors.js';

/** Parses input with a schema; the first problem becomes a 400 whose message names the field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const res = schema.safeParse(input);
  if (res.success) return res.data;
  const issue = res.error.issues[0]!;
  const field = issue.path.join('.');
  throw badInput(issue.message, field ? { field } : undefined);
}

/** Field rules shared by the gateway's REST schemas and the services' gRPC handlers. */
export const fields = {
  email: z
    .string({ error: 'Please enter a valid email address' })
    .trim()
    .max(254, 'Email address is too long')
    .pipe(z.email({ error: 'Please enter a valid email address' })),
  password: z
    .string({ error: 'Password must be at least 6 characters' })
    .min(6, 'Password must be at least 6 characters')
    .max(128, 'Password must be at most 128 characters'),
  name: safeText(
    z
      .string({ error: 'Name must be at least 2 characters' })
      .trim()
      .min(2, 'Name must be at least 2 characters')
      .max(100, 'Name must be at most 100 characters'),
    'Name',
  ),
  objectId: (what: string) => objectId(`Invalid ${what} id`),
  /** GFS retention counts: each a whole number 0 to GFS_MAX_COUNT, at least one above 0. */
  gfsCounts: z
    .object(
      Object.fromEntries(GFS_PERIODS.map((p) => [p, gfsCount(p)])) as Record<
        GfsPeriod,
        ReturnType<typeof gfsCount>
      >,
      { error: 'gfs must give hourly, daily, weekly, monthly and yearly counts' },
    )
    .refine((c) => GFS_PERIODS.some((p) => c[p] > 0), {
      message: 'Keep at least one hourly, daily, weekly, monthly or yearly backup',
    }),
};

function gfsCount(period: GfsPeriod) {
  const message = `${period} must be a whole number from 0 to ${GFS_MAX_COUNT}`;
  return z.number({ error: message }).int(message).min(0, message).max(GFS_MAX_COUNT, message);
}
