import { forbidden, type EventMap } from '@coffer/common';
import type { PlanSource } from '../clients.js';
import type { OrchestratorEvents } from '../events.js';
import type { SettingsRecord, SettingsStore } from '../store/types.js';
import { DEFAULT_SETTINGS, FREQUENCY_OPTIONS, RETENTION_OPTIONS, daysText, hoursText } from './rules.js';

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

/**
 * The saved schedule brought within a (smaller) plan: the most frequent option the plan allows and
 * the longest retention it keeps. Only values beyond the plan move; the answer is the patch to save.
 */
export function clampSettingsToPlan(
  current: SettingsRecord,
  plan: { frequencyLimit: number; retentionLimit: number },
): Partial<SettingsRecord> {
  const patch: Partial<SettingsRecord> = {};
  if (current.frequency < plan.frequencyLimit) {
    patch.frequency = FREQUENCY_OPTIONS.find((h) => h >= plan.frequencyLimit) ?? FREQUENCY_OPTIONS.at(-1)!;
  }
  if (current.retention > plan.retentionLimit) {
    // Never under the shortest option: retention below 3 days is not offered to anyone.
    patch.retention =
      [...RETENTION_OPTIONS].reverse().find((h) => h <= plan.retentionLimit) ?? RETENTION_OPTIONS[0];
  }
  return patch;
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

    /**
     * After a plan change (auth.user.plan_changed): a schedule the new plan does not allow is
     * clamped and saved, so Settings shows what actually runs. Re-running it changes nothing.
     */
    async clampToPlan(userId: string): Promise<SettingsRecord> {
      const current = await store.get(userId);
      if (!current) return { ...DEFAULT_SETTINGS };
      const patch = clampSettingsToPlan(current, await deps.plans.planOf(userId));
      if (!Object.keys(patch).length) return current;
      const { before, after } = await store.save(userId, patch, DEFAULT_SETTINGS);
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
