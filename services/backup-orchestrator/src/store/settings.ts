import { GFS_PERIODS, type GfsCounts } from '@coffer/contracts';
import type { OrchestratorModels } from '../model.js';
import type { RetentionLockRecord, SettingsRecord, SettingsStore } from './types.js';

const SETTINGS_KEYS = ['frequency', 'retention', 'retentionMode', 'gfs'] as const;

// Records saved before GFS have neither field: "keep N days".
const shape = (d: {
  frequency: number;
  retention: number;
  retentionMode?: string | null;
  gfs?: Partial<GfsCounts> | null;
}): SettingsRecord => ({
  frequency: d.frequency,
  retention: d.retention,
  retentionMode: d.retentionMode === 'gfs' ? 'gfs' : 'days',
  gfs: d.gfs ? (Object.fromEntries(GFS_PERIODS.map((p) => [p, d.gfs![p] ?? 0])) as GfsCounts) : null,
});

export function settingsStore({ Settings }: Pick<OrchestratorModels, 'Settings'>): SettingsStore {
  return {
    async get(userId) {
      const d = await Settings.findOne({ userId }).lean();
      return d ? shape(d) : null;
    },
    async all() {
      const docs = await Settings.find(
        {},
        { userId: 1, frequency: 1, retention: 1, retentionMode: 1, gfs: 1 },
      ).lean();
      return new Map(docs.map((d) => [d.userId, shape(d)]));
    },
    async save(userId, patch, defaults) {
      const set: Record<string, unknown> = {};
      const onInsert: Record<string, unknown> = {};
      for (const key of SETTINGS_KEYS) {
        if (patch[key] !== undefined) set[key] = patch[key];
        else onInsert[key] = defaults[key];
      }
      // Empty operators are refused by some servers, so only the non-empty ones are sent.
      const update: Record<string, unknown> = {};
      if (Object.keys(set).length) update.$set = set;
      if (Object.keys(onInsert).length) update.$setOnInsert = onInsert;
      const before = await Settings.findOneAndUpdate({ userId }, update, { upsert: true, new: false }).lean();
      const after = await Settings.findOne({ userId }).lean();
      return { before: before ? shape(before) : null, after: shape(after!) };
    },
    async remove(userId) {
      await Settings.deleteOne({ userId });
    },
    async lock(userId) {
      const d = await Settings.findOne({ userId }, { retentionLock: 1, retentionLockOffAt: 1 }).lean();
      return d ? lockShape(d) : null;
    },
    async saveLock(userId, next, expected, defaults) {
      const set = { retentionLock: next.enabled, retentionLockOffAt: next.offAt };
      if (!expected) {
        await Settings.updateOne(
          { userId },
          { $set: set, $setOnInsert: { frequency: defaults.frequency, retention: defaults.retention } },
          { upsert: true },
        );
        return true;
      }
      // The saved state must still be the one the caller decided from (a turn-off that came due,
      // a cancel from another tab): one conditional update, no transaction needed.
      const r = await Settings.updateOne({ userId, ...lockFilter(expected) }, { $set: set });
      return r.matchedCount === 1;
    },
    async lockTurnOffsDue(now) {
      const docs = await Settings.find(
        { retentionLock: true, retentionLockOffAt: { $lte: now } },
        { userId: 1, retentionLockOffAt: 1 },
      ).lean();
      return docs.map((d) => ({ userId: d.userId, offAt: d.retentionLockOffAt! }));
    },
    async gfsUsers() {
      return Settings.distinct('userId', { retentionMode: 'gfs' });
    },
  };
}

const lockShape = (d: { retentionLock?: boolean | null; retentionLockOffAt?: Date | null }) => ({
  enabled: d.retentionLock === true,
  offAt: d.retentionLockOffAt ?? null,
});

/** Matches a saved lock state; a record saved before the lock existed has neither field (= off). */
function lockFilter(l: RetentionLockRecord): Record<string, unknown> {
  const enabled = l.enabled ? { retentionLock: true } : { retentionLock: { $ne: true } };
  return { ...enabled, retentionLockOffAt: l.offAt ?? null };
}
