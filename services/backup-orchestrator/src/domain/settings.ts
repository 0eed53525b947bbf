import {
  clampGfs,
  DEFAULT_GFS,
  describeGfs,
  GFS_PERIODS,
  gfsOverLimits,
  type GfsCounts,
} from '@coffer/contracts';
import { forbidden, type EventMap } from '@coffer/common';
import type { PlanLimits, PlanSource } from '../clients.js';
import type { OrchestratorEvents } from '../events.js';
import type { SettingsRecord, SettingsStore } from '../store/types.js';
import { DEFAULT_SETTINGS, FREQUENCY_OPTIONS, RETENTION_OPTIONS, daysText, hoursText } from './rules.js';

export const frequencyLimitMessage = (limitHours: number) =>
  `Your plan allows scheduled backups at most once every ${hoursText(limitHours)}`;
export const retentionLimitMessage = (limitHours: number) =>
  `Your plan keeps backups for at most ${daysText(limitHours)}`;

export const gfsLimitMessage = (limits: GfsCounts, over: GfsCounts) => {
  const period = gfsOverLimits(over, limits)[0]!;
  return `Your plan keeps at most ${limits[period]} ${period} backups with GFS retention`;
};

/** Refuses GFS counts beyond the plan's (403 PLAN_GFS_LIMIT, naming the first period over). */
export function checkGfsBounds(counts: GfsCounts, limits: GfsCounts): void {
  if (!gfsOverLimits(counts, limits).length) return;
  throw forbidden(gfsLimitMessage(limits, counts), 'PLAN_GFS_LIMIT', { gfsLimits: limits });
}

const sameGfs = (a: GfsCounts | null, b: GfsCounts | null) =>
  a === b || (!!a && !!b && GFS_PERIODS.every((p) => a[p] === b[p]));

/** The retention rule in product words, for the audit log: 'keep 7 days' or 'GFS 0 hourly, 7 daily, ...'. */
export const retentionRuleText = (s: SettingsRecord) =>
  s.retentionMode === 'gfs' && s.gfs ? `GFS ${describeGfs(s.gfs)}` : `keep ${daysText(s.retention)}`;

/** settings.backup.updated for a save, or null when nothing the audit log names changed. */
function changeEvent(userId: string, was: SettingsRecord, after: SettingsRecord) {
  const event: EventMap['settings.backup.updated'] = { userId };
  if (was.frequency !== after.frequency) event.frequency = { from: was.frequency, to: after.frequency };
  if (was.retention !== after.retention) event.retention = { from: was.retention, to: after.retention };
  const ruleChanged =
    was.retentionMode !== after.retentionMode ||
    (after.retentionMode === 'gfs' && !sameGfs(was.gfs, after.gfs));
  if (ruleChanged) event.retentionRule = { from: retentionRuleText(was), to: retentionRuleText(after) };
  return event.frequency || event.retention || event.retentionRule ? event : null;
}

/**
 * Refuses values beyond the plan. Only values that change are checked, so a user whose plan shrank
 * can still save other fields while the old value stays (the scheduler and retention clamp it).
 */
export function checkSettingsBounds(
  current: SettingsRecord,
  patch: Partial<SettingsRecord>,
  plan: Pick<PlanLimits, 'frequencyLimit' | 'retentionLimit' | 'gfsLimits'>,
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
  if (patch.gfs && !sameGfs(patch.gfs, current.gfs)) checkGfsBounds(patch.gfs, plan.gfsLimits);
}

/**
 * The saved schedule brought within a (smaller) plan: the most frequent option the plan allows and
 * the longest retention it keeps. Only values beyond the plan move; the answer is the patch to save.
 */
export function clampSettingsToPlan(
  current: SettingsRecord,
  plan: Pick<PlanLimits, 'frequencyLimit' | 'retentionLimit' | 'gfsLimits'>,
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
  if (current.gfs && gfsOverLimits(current.gfs, plan.gfsLimits).length) {
    patch.gfs = clampGfs(current.gfs, plan.gfsLimits);
  }
  return patch;
}

const SAVED_KEYS = ['frequency', 'retention', 'retentionMode', 'gfs'] as const;

/** Per-user backup frequency and retention rule; defaults apply until the user saves. */
export function settings(deps: {
  store: SettingsStore;
  plans: PlanSource;
  events: OrchestratorEvents;
  /** The schedule or retention in force may have changed: the scheduler and the sweep look again. */
  changed?: (userId: string) => Promise<void>;
}) {
  const { store } = deps;

  async function get(userId: string): Promise<SettingsRecord> {
    return (await store.get(userId)) ?? { ...DEFAULT_SETTINGS };
  }

  return {
    get,

    /** Membership in the option lists is checked by the handler; the plan's bounds here. */
    async update(userId: string, patch: Partial<SettingsRecord>): Promise<SettingsRecord> {
      const current = await get(userId);
      const changes = SAVED_KEYS.filter(
        (k) =>
          patch[k] !== undefined &&
          (k === 'gfs' ? !sameGfs(patch.gfs!, current.gfs) : patch[k] !== current[k]),
      );
      if (!changes.length) return current;
      const plan = await deps.plans.planOf(userId);
      const next: Partial<SettingsRecord> = Object.fromEntries(changes.map((k) => [k, patch[k]]));
      // GFS chosen without counts and none saved: the suggested ones, within the plan.
      if (next.retentionMode === 'gfs' && !next.gfs && !current.gfs) {
        next.gfs = clampGfs(DEFAULT_GFS, plan.gfsLimits);
      }
      checkSettingsBounds(current, next, plan);
      const { before, after } = await store.save(userId, next, DEFAULT_SETTINGS);
      await deps.changed?.(userId);
      const event = changeEvent(userId, before ?? DEFAULT_SETTINGS, after);
      if (event) await deps.events.publish('settings.backup.updated', event);
      return after;
    },

    /**
     * After a plan change (auth.user.plan_changed): a schedule the new plan does not allow is
     * clamped and saved, so Settings shows what actually runs. Re-running it changes nothing.
     */
    async clampToPlan(userId: string): Promise<SettingsRecord> {
      // The plan bounds the retention in force even when no saved value moves.
      await deps.changed?.(userId);
      const current = await store.get(userId);
      if (!current) return { ...DEFAULT_SETTINGS };
      const patch = clampSettingsToPlan(current, await deps.plans.planOf(userId));
      if (!Object.keys(patch).length) return current;
      const { before, after } = await store.save(userId, patch, DEFAULT_SETTINGS);
      const event = changeEvent(userId, before ?? DEFAULT_SETTINGS, after);
      if (event) await deps.events.publish('settings.backup.updated', event);
      return after;
    },
  };
}
export type Settings = ReturnType<typeof settings>;
