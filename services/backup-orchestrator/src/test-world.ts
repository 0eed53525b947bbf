import { type EventMap, type EventSubject } from '@coffer/common';
import { fakeAdminCheck } from '@coffer/common/testing';
import { agentRegistrationSchema } from '@coffer/contracts';
import { TEST_USER_ID as USER } from '@coffer/local-stack';
import type { BlobStore, PlanLimits } from './clients.js';
import { buildOrchestrator } from './build.js';
import { HOUR_MS } from './domain/rules.js';
import { fakeStores } from './store/fake.js';
import type { AgentRegistration } from './store/types.js';

// The whole domain wired by the service's own builder to in-memory stores, a settable clock and
// recording fakes, for unit tests.

export { TEST_USER_ID as USER, OTHER_USER_ID as OTHER_USER } from '@coffer/local-stack';
export const GB = 1024 ** 3;
/** An admin, and the session tokens the fake auth (`adminCheck`) knows: an admin's and a user's. */
export const ADMIN = 'aaaaaaaaaaaaaaaaaaaaaaad';
export const ADMIN_TOKEN = 'admin-session-token';
export const USER_TOKEN = 'user-session-token';

/**
 * An agent's registration as the orchestrator receives it: through the handshake's own schema, so
 * a field the handshake gains (with its default) needs no edit here or in the tests that use this.
 */
export const agentRegistration = (over: Partial<AgentRegistration> = {}): AgentRegistration => ({
  userId: USER,
  ...agentRegistrationSchema.parse({
    instanceId: 'inst-0001',
    name: 'web-1',
    hostname: 'web-1.internal',
    platform: 'linux',
    version: '1.0.0',
    databases: ['shop'],
  }),
  ...over,
});

export interface Published<S extends EventSubject = EventSubject> {
  subject: S;
  data: EventMap[S];
  id?: string;
}

/** Records every publish; `fail` makes the next publishes of that subject reject. */
export function fakeEvents() {
  const published: Published[] = [];
  const failing = new Set<EventSubject>();
  return {
    published,
    failing,
    async publish<S extends EventSubject>(subject: S, data: EventMap[S], opts?: { id?: string }) {
      if (failing.has(subject)) throw new Error('nats: connection closed');
      published.push({ subject, data: structuredClone(data), id: opts?.id } as Published);
    },
    of<S extends EventSubject>(subject: S): Array<Published<S>> {
      return published.filter((p) => p.subject === subject) as Array<Published<S>>;
    },
    /** Distinct message ids: what JetStream's duplicate window would keep. */
    distinct<S extends EventSubject>(subject: S): Array<Published<S>> {
      const seen = new Set<string>();
      return this.of(subject).filter((p) => !p.id || (!seen.has(p.id) && (seen.add(p.id), true)));
    },
  };
}

export function fakeBlobs(): BlobStore & {
  deleted: string[];
  fail: Error | null;
} {
  const b = {
    deleted: [] as string[],
    fail: null as Error | null,
    async delete(_userId: string, blobId: string) {
      if (b.fail) throw b.fail;
      b.deleted.push(blobId);
    },
  };
  return b;
}

const silent = { info() {}, warn() {}, debug() {} };

export function testWorld(opts: { plan?: Partial<PlanLimits>; hourMs?: number } = {}) {
  let t = new Date('2025-06-02T10:00:00.000Z').getTime();
  const clock = {
    now: () => new Date(t),
    set: (iso: string | Date) => {
      t = new Date(iso).getTime();
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
  const now = clock.now;
  const stores = fakeStores();
  const events = fakeEvents();
  const blobs = fakeBlobs();
  const plan: PlanLimits = {
    dbLimit: 1,
    retentionLimit: 168,
    storageLimit: GB,
    frequencyLimit: 24,
    gfsLimits: { hourly: 24, daily: 31, weekly: 12, monthly: 24, yearly: 3 },
    ...opts.plan,
  };
  const plans = {
    calls: 0,
    async planOf() {
      plans.calls++;
      return { ...plan };
    },
  };
  /** Accounts auth reports as banned (or gone). */
  const suspended = new Set<string>();
  const accounts = { suspended: async (userId: string) => suspended.has(userId) };
  const heartbeatTimeoutMs = 60_000;
  const limits = { commandTimeoutMs: 60_000, heartbeatTimeoutMs, jobMaxHours: 24 };

  const o = buildOrchestrator({
    stores,
    events,
    plans,
    accounts,
    blobs,
    now,
    limits: { ...limits, hourMs: opts.hourMs ?? HOUR_MS },
    log: silent,
  });
  const { agents } = o;

  /** Registers an agent reporting `dbs` for the user; returns its id. */
  async function connectAgent(
    dbs: string[] = ['shop'],
    userId = USER,
    instanceId = 'inst-1',
    keyFingerprint = 'fp',
    name = 'web-1',
  ) {
    const { agent } = await agents.register(
      agentRegistration({ userId, instanceId, databases: dbs, keyFingerprint, name }),
    );
    return agent.id;
  }

  /** A heartbeat from the agent listing the jobs it runs. */
  async function beat(agentId: string, runningJobs: string[] = [], userId = USER) {
    await agents.heartbeat({ userId, agentId, runningJobs, databases: [] });
  }

  // Auth's VerifyAdmin, answered for the two sessions above.
  const adminCheck = fakeAdminCheck({ [ADMIN_TOKEN]: { id: ADMIN, name: 'Ada Admin' } }, [USER_TOKEN]);

  return {
    beat,
    adminCheck,
    clock,
    now,
    stores,
    events,
    blobs,
    plan,
    plans,
    suspended,
    limits,
    ...o,
    connectAgent,
  };
}
export type TestWorld = ReturnType<typeof testWorld>;

/** What every report of the agent about job `job`'s command carries besides its outcome. */
export const commandReport = (agentId: string, job: { commandId: string; id: string }) => ({
  userId: USER,
  agentId,
  commandId: job.commandId,
  jobId: job.id,
});
