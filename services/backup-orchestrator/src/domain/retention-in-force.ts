import { clampGfs, type GfsCounts } from '@coffer/contracts';
import { AppError, type Logger } from '@coffer/common';
import type { PlanLimits, PlanSource } from '../clients.js';
import type { SettingsStore } from '../store/types.js';
import { DEFAULT_SETTINGS, RETENTION_OPTIONS } from './rules.js';

const SHORTEST_RETENTION = RETENTION_OPTIONS[0];

/** The retention that applies: the user's choice, no longer than the plan allows, never under 3 days. */
export function effectiveRetentionHours(setting: number, planLimit: number | undefined): number {
  const bounded = planLimit === undefined ? setting : Math.min(setting, planLimit);
  return Math.max(SHORTEST_RETENTION, bounded);
}

/**
 * The account's retention rule in force now: the days (hours) of the spec's rule, which under GFS
 * still date the retention lock and bound failed backups, and the GFS counts when GFS is chosen
 * (bounded by the plan). Null when the account no longer exists.
 */
export interface RetentionPolicy {
  hours: number;
  gfs: GfsCounts | null;
}

/**
 * Reads the saved settings and the plan; auth not answering applies the saved values (they were
 * within the plan when saved, and a plan change clamps them).
 */
export function retentionPolicyInForce(deps: {
  settings: Pick<SettingsStore, 'get'>;
  plans: PlanSource;
  log: Pick<Logger, 'warn'>;
}) {
  return async (userId: string): Promise<RetentionPolicy | null> => {
    const saved = (await deps.settings.get(userId)) ?? DEFAULT_SETTINGS;
    let plan: PlanLimits | undefined;
    try {
      plan = await deps.plans.planOf(userId);
    } catch (err) {
      if (err instanceof AppError && err.kind === 'NOT_FOUND') return null;
      deps.log.warn({ err, userId }, 'plan unavailable; applying the saved retention');
    }
    const gfs = saved.retentionMode === 'gfs' && saved.gfs ? saved.gfs : null;
    return {
      hours: effectiveRetentionHours(saved.retention, plan?.retentionLimit),
      gfs: gfs && plan ? clampGfs(gfs, plan.gfsLimits) : gfs,
    };
  };
}
export type RetentionPolicyInForce = ReturnType<typeof retentionPolicyInForce>;

/**
 * The user's retention in force now (hours), read by the retention sweep and for a new backup's
 * lock date; null when the account no longer exists.
 */
export function retentionInForce(deps: Parameters<typeof retentionPolicyInForce>[0]) {
  const policyOf = retentionPolicyInForce(deps);
  return async (userId: string): Promise<number | null> => (await policyOf(userId))?.hours ?? null;
}
export type RetentionInForce = ReturnType<typeof retentionInForce>;
