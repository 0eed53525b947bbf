import { forbidden, type EventMap } from '@coffer/common';
import type { PlanSource } from '../clients.js';
import type { OrchestratorEvents } from '../events.js';
import type { SettingsRecord, SettingsStore } from '../store/types.js';
import { DEFAULT_SETTINGS, daysText, hoursText } from './rules.js';

export const frequencyLimitMessage = (limitHours: number) =>
  `Your plan allows scheduled backups at most once every ${hoursText(limitHours)}`;
export const retentionLimitMessage = (limitHours: number) =>
  `Your plan keeps backups for at most ${daysText(limitHours)}`;

/**
 * Refuses values beyond the plan. Only values that change are checked, so a user whose plan shrank
 * can still save other fields while the old value stays (the scheduler and retention clamp it).
 */
export function checkSettingsBounds(
  current: SettingsRecord,
  patch: Partial<SettingsRecord>,
  plan: { frequencyLimit: number; retentionLimit: number },
): void {
  if (
    patch.frequency !== undefined &&
    patch.frequency !== current.frequency &&
    patch.frequency < plan.frequencyLimit
  ) {
    throw forbidden(frequencyLimitMessage(plan.frequencyLimit), 'PLAN_FREQUENCY_LIMIT', {
      frequencyLimit: plan.frequencyLimit,
    });
  }
  if (
    patch.retention !== undefined &&
    patch.retention !== current.retention &&
    patch.retention > plan.retentionLimit
  ) {
    throw forbidden(retentionLimitMessage(plan.retentionLimit), 'PLAN_RETENTION_LIMIT', {
      retentionLimit: plan.retentionLimit,
    });
  }
}

/** Per-user backup frequency and retention (hours); defaults apply until the user saves. */
export function settings(deps: { store: SettingsStore; plans: PlanSource; events: OrchestratorEvents }) {
  const { store } = deps;

  async function get(userId: string): Promise<SettingsRecord> {
    return (await store.get(userId)) ?? { ...DEFAULT_SETTINGS };
  }

  return {
    get,

    /** Membership in the option lists is checked by the handler; the plan's bounds here. */
    async update(userId: string, patch: Partial<SettingsRecord>): Promise<SettingsRecord> {
      const current = await get(userId);
      const changes = (['frequency', 'retention'] as const).filter(
        (k) => patch[k] !== undefined && patch[k] !== current[k],
      );
      if (!changes.length) return current;
      checkSettingsBounds(current, patch, await deps.plans.planOf(userId));
      const { before, after } = await store.save(
        userId,
        Object.fromEntries(changes.map((k) => [k, patch[k]])),
        DEFAULT_SETTINGS,
      );
      const was = before ?? DEFAULT_SETTINGS;
      const event: EventMap['settings.backup.updated'] = { userId };
      if (was.frequency !== after.frequency) event.frequency = { from: was.frequency, to: after.frequency };
      if (was.retention !== after.retention) event.retention = { from: was.retention, to: after.retention };
      if (event.frequency || event.retention) await deps.events.publish('settings.backup.updated', event);
      return after;
    },
  };
}
export type Settings = ReturnType<typeof settings>;
