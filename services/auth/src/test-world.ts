import jwt from 'jsonwebtoken';
import { createLogger, type EventMap, type EventSubject } from '@coffer/common';
import { TEST_SECRETS } from '@coffer/local-stack';
import { buildAuth, type AuthSettings } from './build.js';
import type { TokenClaims } from './domain/tokens.js';
import type { AuthMail } from './mail.js';
import { fakeAuthStores } from './store/fake.js';

// Auth wired by its own builder to in-memory stores, a settable clock and a recording event
// publisher, for the domain's unit tests.

export const TEST_SETTINGS: AuthSettings = {
  API_KEY_PEPPER: TEST_SECRETS.apiKeyPepper,
  JWT_SECRET: TEST_SECRETS.jwtSecret,
  JWT_TTL_SECONDS: 3600,
  PUBLIC_URL: 'https://coffer.example/',
  DEV_EXPOSE_RESET_TOKEN: false,
};

export interface Published<S extends EventSubject = EventSubject> {
  subject: S;
  data: EventMap[S];
}

function recordingEvents() {
  const published: Published[] = [];
  return {
    published,
    async publish<S extends EventSubject>(subject: S, data: EventMap[S]) {
      published.push({ subject, data: structuredClone(data) } as Published);
    },
    of<S extends EventSubject>(subject: S): Array<EventMap[S]> {
      return published.filter((p) => p.subject === subject).map((p) => p.data as EventMap[S]);
    },
  };
}

/** What auth handed to notification; `fail` makes the next calls reject (notification down). */
function recordingMail() {
  type Reset = Parameters<AuthMail['passwordReset']>[0];
  type EmailChanged = Parameters<AuthMail['accountEmailChanged']>[0];
  const rec = {
    resets: [] as Reset[],
    emailChanges: [] as EmailChanged[],
    fail: null as Error | null,
    async passwordReset(d: Reset) {
      if (rec.fail) throw rec.fail;
      rec.resets.push(d);
    },
    async accountEmailChanged(d: EmailChanged) {
      if (rec.fail) throw rec.fail;
      rec.emailChanges.push(d);
    },
  };
  return rec;
}

export async function authWorld() {
  let t = new Date('2025-06-02T10:00:00.000Z').getTime();
  const clock = {
    now: () => new Date(t),
    advance: (ms: number) => {
      t += ms;
    },
  };
  const stores = fakeAuthStores(clock.now);
  const events = recordingEvents();
  const mail = recordingMail();
  const auth = buildAuth({
    stores,
    events,
    mail,
    config: TEST_SETTINGS,
    log: createLogger('auth-test', 'silent'),
    now: clock.now,
  });
  await auth.plans.seed();
  const plan = async (key: string) => (await stores.plans.byKey(key))!;

  /** Registers a user through the domain; the password is 'secret-1'. */
  async function register(email = 'ada@example.com', name = 'Ada') {
    return auth.accounts.register({ name, email, password: 'secret-1' });
  }

  /** The claims of a session token, checked with the test secret (none: a sign-in that answered a challenge). */
  const claims = (token: string | undefined) => {
    if (!token) throw new Error('no session token: the sign-in answered a two-factor challenge');
    return jwt.verify(token, TEST_SETTINGS.JWT_SECRET) as TokenClaims;
  };

  return { ...auth, stores, events, mail, clock, plan, register, claims };
}
export type AuthWorld = Awaited<ReturnType<typeof authWorld>>;
