import type { AuthModels } from '../model.js';
import type { EndedSessionStore } from './types.js';

export function endedSessionStore({ EndedSession }: Pick<AuthModels, 'EndedSession'>): EndedSessionStore {
  return {
    async add({ userId, sessionId, expiresAt }) {
      // An upsert on the unique (user, session) pair: a second sign-out of the same session is a no-op.
      await EndedSession.updateOne({ userId, sessionId }, { $set: { expiresAt } }, { upsert: true });
    },
    async activeFor(userId, now) {
      const rows = await EndedSession.find({ userId, expiresAt: { $gt: now } }, { sessionId: 1 }).lean<
        Array<{ sessionId: string }>
      >();
      return rows.map((r) => r.sessionId);
    },
    async removeExpired(before) {
      await EndedSession.deleteMany({ expiresAt: { $lt: before } });
    },
  };
}
