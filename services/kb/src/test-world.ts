import { createLogger, type EventMap, type EventSubject } from '@coffer/common';
import { fakeAdminCheck } from '@coffer/common/testing';
import { buildKb } from './build.js';
import { fakeArticleStore } from './store/fake.js';

// kb wired by its own builder to the in-memory store, a settable clock and a recording event
// publisher, for the domain's and the handlers' unit tests.

export const ADMIN = { id: 'a'.repeat(24), name: 'Ada Admin' };
/** The session tokens the fake auth (`adminCheck`) knows: ADMIN's and a signed-in non-admin's. */
export const ADMIN_TOKEN = 'admin-session-token';
export const USER_TOKEN = 'user-session-token';

export function kbWorld() {
  let t = new Date('2025-06-02T10:00:00.000Z').getTime();
  const clock = {
    now: () => new Date(t),
    advance: (ms: number) => {
      t += ms;
    },
  };
  const store = fakeArticleStore();
  const published: Array<{ subject: EventSubject; data: unknown }> = [];
  const events = {
    async publish<S extends EventSubject>(subject: S, data: EventMap[S]) {
      published.push({ subject, data: structuredClone(data) });
    },
  };
  // Auth's VerifyAdmin, answered for the two sessions above.
  const adminCheck = fakeAdminCheck({ [ADMIN_TOKEN]: ADMIN }, [USER_TOKEN]);
  const kb = buildKb({ store, events, adminCheck, log: createLogger('kb-test', 'silent'), now: clock.now });

  /** A valid new article; `over` changes any field. */
  const draft = (slug: string, over: Partial<Parameters<typeof kb.articles.create>[1]> = {}) => ({
    title: `About ${slug}`,
    slug,
    content: `# ${slug}\n\nText of ${slug}.`,
    ...over,
  });

  return { ...kb, store, clock, published, draft, adminCheck };
}
