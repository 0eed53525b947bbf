import type { PreferencesPatch, PreferencesRecord, PreferencesStore } from '../store.js';

export const DEFAULT_PREFERENCES: PreferencesRecord = {
  backupSuccess: true,
  backupFailure: true,
  agentDisconnection: true,
  email: null,
};

export type NotificationTopic = 'backupSuccess' | 'backupFailure' | 'agentDisconnection';

/** A user's notification choices: which mails they want and where (spec: all on by default). */
export function preferences(deps: { store: Pick<PreferencesStore, 'get' | 'upsert' | 'remove'> }) {
  const { store } = deps;
  return {
    async get(userId: string): Promise<PreferencesRecord> {
      return (await store.get(userId)) ?? { ...DEFAULT_PREFERENCES };
    },

    /** Changes only the fields given; an empty email goes back to the account email. */
    async update(userId: string, patch: PreferencesPatch): Promise<PreferencesRecord> {
      const set: PreferencesPatch = {};
      for (const k of ['backupSuccess', 'backupFailure', 'agentDisconnection'] as const) {
        if (patch[k] !== undefined) set[k] = patch[k];
      }
      if (patch.email !== undefined) set.email = patch.email ? patch.email : null;
      return store.upsert(userId, set);
    },

    async remove(userId: string): Promise<void> {
      await store.remove(userId);
    },

    /**
     * Where a notification about `topic` goes, or null when the user turned it off. Mails that are
     * not notifications (password reset) always go to the account email and never ask this.
     */
    async recipient(userId: string, accountEmail: string, topic?: NotificationTopic): Promise<string | null> {
      const p = await this.get(userId);
      if (topic && !p[topic]) return null;
      return p.email ?? accountEmail;
    },
  };
}
export type Preferences = ReturnType<typeof preferences>;
