import type { OverdueSample } from '@coffer/common';
import type { PlanSource } from '../clients.js';
import type { BackupStore, DatabaseStore, SettingsStore } from '../store/types.js';
import { DEFAULT_SETTINGS, activeDatabaseIds } from './rules.js';

/** A plan that names none (an older auth) is counted under this label. */
export const UNKNOWN_PLAN = 'unknown';

/**
 * Counts, per plan, the databases the scheduler should back up (enabled and within the plan's
 * database limit) and those whose last completed backup is older than twice their interval (the
 * user's frequency, or the plan's when that is longer). A database never backed up counts from
 * when it was first reported. Plans, not databases, label the result: an alert needs the share,
 * and per-database series would grow with the customers.
 */
export function overdueBackups(deps: {
  stores: {
    databases: Pick<DatabaseStore, 'enabled'>;
    settings: Pick<SettingsStore, 'all'>;
    backups: Pick<BackupStore, 'latestCompleted'>;
  };
  plans: PlanSource;
  now: () => Date;
  hourMs: number;
}) {
  const { stores } = deps;
  return async function count(): Promise<OverdueSample[]> {
    const now = deps.now().getTime();
    const [dbs, settings] = await Promise.all([stores.databases.enabled(), stores.settings.all()]);
    const byUser = new Map<string, typeof dbs>();
    for (const d of dbs) byUser.set(d.userId, [...(byUser.get(d.userId) ?? []), d]);
    const byPlan = new Map<string, OverdueSample>();
    for (const [userId, userDbs] of byUser) {
      const plan = await deps.plans.planOf(userId);
      const label = plan.id ?? UNKNOWN_PLAN;
      const sample = byPlan.get(label) ?? { plan: label, scheduled: 0, overdue: 0 };
      byPlan.set(label, sample);
      const frequency = settings.get(userId)?.frequency ?? DEFAULT_SETTINGS.frequency;
      const intervalMs = Math.max(frequency, plan.frequencyLimit) * deps.hourMs;
      const active = activeDatabaseIds(userDbs, plan.dbLimit);
      for (const db of userDbs) {
        if (!active.has(db.id)) continue;
        sample.scheduled++;
        const last = await stores.backups.latestCompleted(userId, db.name);
        const since = (last?.completedAt ?? last?.createdAt ?? db.createdAt).getTime();
        if (now - since > 2 * intervalMs) sample.overdue++;
      }
    }
    return [...byPlan.values()];
  };
}

/** The last count for `ttlMs`: scrapes come every few seconds, the answer moves by the hour. */
export function cachedCount<T>(count: () => Promise<T>, ttlMs: number, now = () => Date.now()) {
  let last: { at: number; value: Promise<T> } | undefined;
  return (): Promise<T> => {
    if (!last || now() - last.at >= ttlMs) {
      const value = count();
      last = { at: now(), value };
      // A failed count is not kept: the next scrape asks again.
      value.catch(() => {
        if (last?.value === value) last = undefined;
      });
    }
    return last.value;
  };
}
