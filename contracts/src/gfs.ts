// Grandfather-father-son retention (issue 20): instead of "keep N days", keep the newest backup of
// each of the last N hours, days, weeks, months and years that have one. Shared by the gateway's
// validation, the orchestrator's rule and the web form, so the three agree on names and bounds.

/** The periods, shortest first; periods are calendar periods in UTC, weeks start on Monday. */
export const GFS_PERIODS = ['hourly', 'daily', 'weekly', 'monthly', 'yearly'] as const;
export type GfsPeriod = (typeof GFS_PERIODS)[number];
/** How many of each period keep their newest backup. 0: that period keeps none. */
export type GfsCounts = Record<GfsPeriod, number>;

/** No plan allows more of one period than this; the edge refuses larger numbers outright. */
export const GFS_MAX_COUNT = 1000;

/** What a new GFS setting starts from (then bounded by the plan): a week of days, a month of weeks, a year of months. */
export const DEFAULT_GFS: GfsCounts = { hourly: 0, daily: 7, weekly: 4, monthly: 12, yearly: 0 };

/** Retention modes: the spec's "keep N days" (the default) or GFS. */
export const RETENTION_MODES = ['days', 'gfs'] as const;
export type RetentionMode = (typeof RETENTION_MODES)[number];

/** The counts no larger than the plan allows. */
export const clampGfs = (counts: GfsCounts, limits: GfsCounts): GfsCounts =>
  Object.fromEntries(GFS_PERIODS.map((p) => [p, Math.min(counts[p], limits[p])])) as GfsCounts;

/** The periods whose count is beyond the plan's. */
export const gfsOverLimits = (counts: GfsCounts, limits: GfsCounts): GfsPeriod[] =>
  GFS_PERIODS.filter((p) => counts[p] > limits[p]);

/** "24 hourly, 7 daily, 4 weekly, 12 monthly, 0 yearly": the setting in product words (audit, rules). */
export const describeGfs = (c: GfsCounts): string => GFS_PERIODS.map((p) => `${c[p]} ${p}`).join(', ');
