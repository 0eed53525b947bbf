import { forbidden, limitReached, notFound } from '@coffer/common';
import type { VerifyMode } from '@coffer/contracts';
import type { PlanLimits, PlanSource } from '../clients.js';
import type { OrchestratorEvents } from '../events.js';
import type { DatabaseRecord, DatabaseStore } from '../store/types.js';
import { activeDatabaseIds, plural } from './rules.js';

export type DatabaseView = DatabaseRecord & { isActive: boolean };

export const INACTIVE_DATABASE = "This database is inactive because your plan's database limit is exceeded";
export const UNKNOWN_DATABASE = 'Unknown database';

export const databaseLimitMessage = (dbLimit: number) =>
  `Your plan allows ${plural(dbLimit, 'active database')}. Disable another database or upgrade your plan.`;

/** A user's databases (names only, reported by agents) and which of them the plan lets run. */
export function databases(deps: {
  store: DatabaseStore;
  plans: PlanSource;
  events: OrchestratorEvents;
  /** A toggle moved: the scheduler looks at the user's databases again. */
  changed?: (userId: string) => Promise<void>;
}) {
  const { store, plans } = deps;

  async function list(userId: string, plan?: PlanLimits): Promise<DatabaseView[]> {
    const [records, limits] = await Promise.all([store.list(userId), plan ?? plans.planOf(userId)]);
    const active = activeDatabaseIds(records, limits.dbLimit);
    return records.map((d) => ({ ...d, isActive: active.has(d.id) }));
  }

  return {
    list,

    /** Turns the user's toggle on or off; turning one on past the plan's limit is refused. */
    async setActive(userId: string, databaseId: string, isActive: boolean): Promise<DatabaseView[]> {
      const plan = await plans.planOf(userId);
      const all = await list(userId, plan);
      const target = all.find((d) => d.id === databaseId);
      if (!target) throw notFound('Database not found');
      if (isActive && !target.isActive) {
        const othersEnabled = all.filter((d) => d.enabled && d.id !== databaseId).length;
        if (othersEnabled >= plan.dbLimit) {
          throw limitReached(databaseLimitMessage(plan.dbLimit), 'DATABASE_LIMIT_REACHED', {
            dbLimit: plan.dbLimit,
          });
        }
      }
      if (target.enabled !== isActive) {
        await store.setEnabled(userId, databaseId, isActive);
        await deps.changed?.(userId);
        await deps.events.publish('settings.database.updated', {
          userId,
          databaseId,
          databaseName: target.name,
          isActive,
        });
      }
      return list(userId, plan);
    },

    /** Verified backups for the database (Settings → Databases): off, each backup, or weekly. */
    async setVerify(userId: string, databaseId: string, verify: VerifyMode): Promise<DatabaseView[]> {
      const [records, plan] = await Promise.all([store.list(userId), plans.planOf(userId)]);
      const target = records.find((d) => d.id === databaseId);
      if (!target) throw notFound('Database not found');
      const from = target.verify ?? 'off';
      if (from !== verify) {
        if (!(await store.setVerify(userId, databaseId, verify))) throw notFound('Database not found');
        await deps.events.publish('settings.verification.updated', {
          userId,
          databaseId,
          databaseName: target.name,
          from,
          to: verify,
        });
      }
      // The list as read, with this change in it: no second read.
      const active = activeDatabaseIds(records, plan.dbLimit);
      return records.map((d) => ({
        ...d,
        ...(d.id === databaseId ? { verify } : {}),
        isActive: active.has(d.id),
      }));
    },

    /** The database by name, refusing unknown and inactive ones (backups and restores need it active). */
    async requireActive(userId: string, name: string, plan: PlanLimits): Promise<DatabaseView> {
      const db = (await list(userId, plan)).find((d) => d.name === name);
      if (!db) throw notFound(UNKNOWN_DATABASE);
      if (!db.isActive) throw forbidden(INACTIVE_DATABASE, 'DATABASE_INACTIVE');
      return db;
    },
  };
}
export type Databases = ReturnType<typeof databases>;
