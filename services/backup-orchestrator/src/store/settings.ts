import type { OrchestratorModels } from '../model.js';
import type { SettingsRecord, SettingsStore } from './types.js';

const shape = (d: { frequency: number; retention: number }): SettingsRecord => ({
  frequency: d.frequency,
  retention: d.retention,
});

export function settingsStore({ Settings }: Pick<OrchestratorModels, 'Settings'>): SettingsStore {
  return {
    async get(userId) {
      const d = await Settings.findOne({ userId }).lean();
      return d ? shape(d) : null;
    },
    async all() {
      const docs = await Settings.find({}, { userId: 1, frequency: 1, retention: 1 }).lean();
      return new Map(docs.map((d) => [d.userId, shape(d)]));
    },
    async save(userId, patch, defaults) {
      const set: Partial<SettingsRecord> = {};
      const onInsert: Partial<SettingsRecord> = {};
      for (const key of ['frequency', 'retention'] as const) {
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
  };
}
