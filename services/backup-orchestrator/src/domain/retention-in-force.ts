import { AppError, type Logger } from '@coffer/common';
import type { PlanSource } from '../clients.js';
import type { SettingsStore } from '../store/types.js';
import { DEFAULT_SETTINGS, RETENTION_OPTIONS } from './rules.js';

const SHORTEST_RETENTION = RETENTION_OPTIONS[0];

/** The retention that applies: the user's choice, no longer than the plan allows, never under 3 days. */
export function effectiveRetentionHours(setting: number, planLimit: number | undefined): number {
  const bounded = planLimit === undefined ? setting : Math.min(setting, planLimit);
  return Math.max(SHORTEST_RETENTION, bounded);
}

/**
 * The user's retention in force now (hours), read by the retention sweep and for a new backup's
 * lock date; null when the account no longer exists. Auth not answering applies the saved value.
 */
export function retentionInForce(deps: {
  settings: Pick<SettingsStore, 'get'>;
  plans: PlanSource;
  log: Pick<Logger, 'warn'>;
}) {
  return async (userId: string): Promise<number | null> => {
    const setting = ((await deps.settings.get(userId)) ?? DEFAULT_SETTINGS).retention;
    try {
      return effectiveRetentionHours(setting, (await deps.plans.planOf(userId)).retentionLimit);
    } catch (err) {
      if (err instanceof AppError && err.kind === 'NOT_FOUND') return null;
      deps.log.warn({ err, userId }, 'plan unavailable; applying the saved retention');
      return effectiveRetentionHours(setting, undefined);
    }
  };
}
export type RetentionInForce = ReturnType<typeof retentionInForce>;
