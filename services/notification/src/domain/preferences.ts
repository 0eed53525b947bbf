import type { EventBus, Logger } from '@coffer/common';
import type { PreferencesPatch, PreferencesRecord, PreferencesStore } from '../store.js';

export const DEFAULT_PREFERENCES: PreferencesRecord = {
  backupSuccess: true,
  backupFailure: true,
  agentDisconnection: true,
  email: null,
};

export type NotificationTopic = 'backupSuccess' | 'backupFailure' | 'agentDisconnection';
const TOPICS: NotificationTopic[] = ['backupSuccess', 'backupFailure', 'agentDisconnection'];

/** How many pending announcements one sweep publishes at most. */
const SWEEP_BATCH = 100;

/**
 * Id of the settings.notifications.updated event of a user's `version`-th toggle change: one id per
 * change, so a republished change is dropped by JetStream (and by audit's unique index).
 */
export const announcementId = (userId: string, version: number) =>
  `settings.notifications.updated:${userId}:${version}`;

/** A user's notification choices: which mails they want and where (spec: all on by default). */
export function preferences(deps: {
  store: Pick<
    PreferencesStore,
    'get' | 'updateReturningBefore' | 'remove' | 'noteToggleChange' | 'markAnnounced' | 'unannounced'
  >;
  events: Pick<EventBus, 'publish'>;
  log: Pick<Logger, 'info' | 'warn'>;
}) {
  const { store, events, log } = deps;

  /** Publishes one toggle change, then marks it published (unless a newer one came meanwhile). */
  async function announce(userId: string, version: number, p: PreferencesRecord): Promise<void> {
    await events.publish(
      'settings.notifications.updated',
      {
        userId,
        backupSuccess: p.backupSuccess,
        backupFailure: p.backupFailure,
        agentDisconnection: p.agentDisconnection,
      },
      { id: announcementId(userId, version) },
    );
    await store.markAnnounced(userId, version);
  }

  return {
    async get(userId: string): Promise<PreferencesRecord> {
      return (await store.get(userId)) ?? { ...DEFAULT_PREFERENCES };
    },

    /**
     * Changes only the fields given; an empty email goes back to the account email. When a toggle
     * really changed, publishes settings.notifications.updated (the address alone is no event).
     * The change is saved as pending first: if NATS is down, announcePending() publishes it later
     * and the caller still gets its answer.
     */
    async update(userId: string, patch: PreferencesPatch): Promise<PreferencesRecord> {
      const set: PreferencesPatch = {};
      for (const k of TOPICS) {
        if (patch[k] !== undefined) set[k] = patch[k];
      }
      if (patch.email !== undefined) set.email = patch.email ? patch.email : null;
      const before = (await store.updateReturningBefore(userId, set)) ?? { ...DEFAULT_PREFERENCES };
      const after: PreferencesRecord = { ...before, ...set };
      if (!TOPICS.some((k) => before[k] !== after[k])) return after;

      const version = await store.noteToggleChange(userId);
      if (version === null) return after; // deleted meanwhile: nothing to announce
      try {
        await announce(userId, version, after);
      } catch (err) {
        log.warn({ err, userId, version }, 'notification settings change not published yet; will retry');
      }
      return after;
    },

    /**
     * Publishes the toggle changes that were saved but not (known to be) published, with their
     * current values. Safe to run anywhere, any time: a republished change keeps its event id.
     */
    async announcePending(): Promise<number> {
      let published = 0;
      for (const c of await store.unannounced(SWEEP_BATCH)) {
        await announce(c.userId, c.version, c.preferences);
        published++;
      }
      if (published) log.info({ published }, 'published pending notification settings changes');
      return published;
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
