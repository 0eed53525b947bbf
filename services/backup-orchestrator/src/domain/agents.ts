import { createHash, randomUUID } from 'node:crypto';
import { LIMITS, updateNotDeliveredReason } from '@coffer/contracts';
import {
  AppError,
  conflict,
  limitReached,
  notFound,
  unavailable,
  type AgentCommandKind,
  type AgentEvent,
  type Logger,
} from '@coffer/common';
import type { OrchestratorEvents } from '../events.js';
import type {
  AgentRecord,
  AgentRegistration,
  AgentStore,
  DatabaseStore,
  LeaseStore,
  OfflineReason,
} from '../store/types.js';
import type { DatabaseView, Databases } from './databases.js';
import type { Dispatcher } from './dispatch.js';
import { agentStatus, HOUR_MS, type AgentStatus } from './rules.js';

export type AgentView = AgentRecord & { status: AgentStatus };
/** Refused with code AGENT_RESET, on which the agent registers again with a new instance id. */
export const AGENT_RESET_MESSAGE =
  'This agent connection was reset from the dashboard; the agent must register again as a new instance';

/** How long a registration may take when its caller sets no deadline. */
export const REGISTRATION_TIMEOUT_MS = 15_000;
/** How long a heartbeat waits for the account's lease to add newly reported databases. */
const HEARTBEAT_LEASE_WAIT_MS = 2_000;
const LEASE_POLL_MS = 25;

export const REGISTRATION_ABANDONED =
  'The agent registration could not be finished in time and was abandoned; the agent will try again';

export type ManageAction = Extract<AgentCommandKind, 'restart' | 'update' | 'reset'>;

export interface UpdateReport {
  userId: string;
  agentId: string;
  status: 'updated' | 'current' | 'failed';
  fromVersion: string;
  toVersion: string;
  error?: string;
}

/**
 * Whether a registration is the same installation as an older record: same host and name, and
 * the same configuration file when both say which (older agents do not), so two agents of one
 * host, each with its own file and the host's name as their default name, are not taken for one.
 */
export function sameInstallation(
  a: Pick<AgentRecord, 'name' | 'hostname' | 'configId'>,
  b: Pick<AgentRegistration, 'name' | 'hostname' | 'configId'>,
): boolean {
  if (a.name !== b.name || a.hostname !== b.hostname) return false;
  return !a.configId || !b.configId || a.configId === b.configId;
}

const agentEvent = (a: AgentRecord): AgentEvent => ({
  userId: a.userId,
  agentId: a.id,
  name: a.name,
  hostname: a.hostname,
});

/** Agents: registration and heartbeats (relayed by the gateway), status for the UI, commands from the user. */
export function agents(deps: {
  store: AgentStore;
  /** Serialises each account's registrations across replicas, so its caps hold (see register). */
  leases: LeaseStore;
  databaseStore: Pick<DatabaseStore, 'ensure' | 'list'>;
  databases: Pick<Databases, 'list'>;
  dispatch: Pick<Dispatcher, 'send' | 'newCommandId'>;
  /** Reconciles the agent's jobs with what its heartbeat says it is running (jobs/watchdog.ts). */
  reconcileJobs: (agentId: string, runningJobs: string[]) => Promise<void>;
  /** Fails the jobs a leaving agent will not start (jobs/watchdog.ts). */
  abandonJobs?: (agentId: string, restarting: boolean) => Promise<unknown>;
  /** The agent is connected: databases parked while no agent reported them are due again. */
  registered?: (userId: string) => Promise<void>;
  events: OrchestratorEvents;
  now: () => Date;
  heartbeatTimeoutMs: number;
  log: Pick<Logger, 'info'>;
}) {
  const { store, now } = deps;
  const abandoned = () => unavailable(REGISTRATION_ABANDONED);
  /** Throws once `deadline` has passed: checked before each write of a registration. */
  const inTimeFor = (deadline: Date) => () => {
    if (now() >= deadline) throw abandoned();
  };

  /**
   * Runs `work` holding the account's lease, waiting for it until `deadline`. The lease lasts
   * until the deadline, and `work` checks `inTime` before each write: a registration that ran out
   * of time writes nothing more, so no two of an account's registrations write at once.
   */
  async function underAccountLease<T>(
    userId: string,
    deadline: Date,
    work: (inTime: () => void) => Promise<T>,
  ): Promise<T> {
    const key = `register:${userId}`;
    const holder = randomUUID();
    const inTime = inTimeFor(deadline);
    // Waiting is timed by the wall clock: the domain's clock may be a test's, standing still.
    const waitUntil = Date.now() + Math.max(0, deadline.getTime() - now().getTime());
    while (!(await deps.leases.acquire(key, holder, now(), deadline))) {
      if (Date.now() + LEASE_POLL_MS >= waitUntil) throw abandoned();
      await new Promise((r) => setTimeout(r, LEASE_POLL_MS * (0.5 + Math.random())));
    }
    try {
      inTime();
      return await work(inTime);
    } finally {
      await deps.leases.release(key, holder);
    }
  }
  const view = (a: AgentRecord, at = now()): AgentView => ({
    ...a,
    status: agentStatus(a, at, deps.heartbeatTimeoutMs),
  });
  const unknownAgent = () => notFound('Agent not found');

  /** The agent's socket closed. Announced once, however often the gateway reports it. */
  async function disconnected(
    userId: string,
    agentId: string,
    why: { leaving?: 'restart' | 'stop'; reason?: OfflineReason } = {},
  ): Promise<void> {
    const was = await store.disconnect(userId, agentId, now(), why.reason);
    if (was) {
      await deps.events.publish('agent.agent.disconnected', { ...agentEvent(was), ...why });
      return;
    }
    const agent = await store.get(agentId);
    if (!agent || agent.userId !== userId) throw unknownAgent();
  }

  /** The reported names the account does not have yet, and how many it has. */
  async function newDatabases(userId: string, names: string[]) {
    const known = new Set((await deps.databaseStore.list(userId)).map((d) => d.name));
    return { known: known.size, fresh: [...new Set(names)].filter((n) => !known.has(n)) };
  }

  /** The caps, then the writes, each write only while `inTime` (it throws once the deadline passed). */
  async function registerChecked(
    reg: AgentRegistration,
    existing: AgentRecord | null,
    inTime: () => void,
    counted?: Awaited<ReturnType<typeof newDatabases>>,
  ): Promise<{ agent: AgentRecord; databases: DatabaseView[] }> {
    const at = now();
    // Caps checked before anything is written, so a refused registration leaves no trace.
    if (!existing) {
      const others = (await store.list(reg.userId)).filter(
        // The ones this registration replaces (below) do not count.
        (a) => a.connected || !sameInstallation(a, reg),
      );
      if (others.length >= LIMITS.agentsPerAccount)
        throw limitReached(
          `An account can have at most ${LIMITS.agentsPerAccount} agents. Remove one you no longer use ` +
            '(Settings → Agents → Remove Agent) before adding another.',
        );
    }
    const { known, fresh } = counted ?? (await newDatabases(reg.userId, reg.databases));
    if (known + fresh.length > LIMITS.databasesPerAccount)
      throw limitReached(
        `An account can have at most ${LIMITS.databasesPerAccount} databases; it has ${known} and this ` +
          `agent adds ${fresh.length}. Remove databases from the agent (coffer-agent db remove) and restart it.`,
      );
    // Databases first: once the agent shows as active, a backup of them must be possible.
    inTime();
    await deps.databaseStore.ensure(reg.userId, fresh, at);
    inTime();
    const { agent, isNew } = await store.register(reg, at, existing);
    await deps.registered?.(reg.userId);
    // The same installation under a new instance id is the agent set up again (`init` again, a
    // fresh state folder): it replaces its old registrations that are not connected.
    for (const old of await store.list(reg.userId)) {
      if (old.id === agent.id || old.connected || !sameInstallation(old, reg)) continue;
      await store.retire(reg.userId, old.id);
      deps.log.info(
        { userId: reg.userId, agentId: old.id, by: agent.id },
        'agent replaced by a new instance',
      );
    }
    if (isNew) {
      await deps.events.publish('agent.agent.registered', agentEvent(agent));
      deps.log.info({ userId: agent.userId, agentId: agent.id }, 'agent registered');
    }
    return { agent, databases: await deps.databases.list(reg.userId) };
  }

  /**
   * New names a heartbeat reports, under the account's lease like a registration, so the database
   * cap holds. Past the cap the rest are left out rather than the heartbeat refused (refusing would
   * make a working agent look dead; its next registration says why); when the lease is busy they
   * wait for the next heartbeat.
   */
  async function addReported(userId: string, agentId: string, reported: string[], at: Date): Promise<void> {
    try {
      await underAccountLease(userId, new Date(now().getTime() + HEARTBEAT_LEASE_WAIT_MS), async (inTime) => {
        const { known, fresh } = await newDatabases(userId, reported);
        const room = Math.max(0, LIMITS.databasesPerAccount - known);
        if (fresh.length > room)
          deps.log.info(
            { userId, agentId, left: fresh.length - room },
            'reported databases past the account cap left out',
          );
        inTime();
        if (fresh.length && room) await deps.databaseStore.ensure(userId, fresh.slice(0, room), at);
      });
    } catch (err) {
      if (!(err instanceof AppError && err.message === REGISTRATION_ABANDONED)) throw err;
      deps.log.info({ userId, agentId }, 'newly reported databases wait for the next heartbeat');
    }
  }

  return {
    /**
     * Registers or refreshes the agent and adds the database names it reports. A registration that
     * could add an agent or a database runs under the account's lease (FerretDB has no transactions:
     * the caps are checked and written by one registration of the account at a time, on every
     * replica), and is abandoned, writing nothing more, once `deadline` (the agent's handshake
     * deadline, which the gateway passes on) has passed: the agent has given up on it by then.
     */
    async register(
      reg: AgentRegistration,
      opts: { deadline?: Date } = {},
    ): Promise<{ agent: AgentRecord; databases: DatabaseView[] }> {
      const deadline = opts.deadline ?? new Date(now().getTime() + REGISTRATION_TIMEOUT_MS);
      inTimeFor(deadline)();
      // A reset retires the installation's identity for good: a copy still holding it (or the agent
      // itself, offline when the reset was sent) must come back as a new instance.
      const existing = await store.findInstance(reg.userId, reg.instanceId);
      if (existing?.retired) throw conflict(AGENT_RESET_MESSAGE, 'AGENT_RESET');
      // A known agent reporting no new database adds nothing the caps count: no lease needed (agents
      // reconnecting together after a gateway restart do not wait for each other).
      if (existing) {
        const counted = await newDatabases(reg.userId, reg.databases);
        // Counted outside the lease: nothing new, so nothing a concurrent registration could race.
        if (counted.fresh.length === 0) return registerChecked(reg, existing, inTimeFor(deadline), counted);
      }
      return underAccountLease(reg.userId, deadline, (inTime) => registerChecked(reg, existing, inTime));
    },

    /**
     * lastSeen = now and the reported databases. An empty list keeps the previous one (proto3 cannot
     * tell "none" from "not sent"; an agent without databases has nothing to run anyway).
     */
    async heartbeat(input: {
      userId: string;
      agentId: string;
      runningJobs: string[];
      databases: string[];
    }): Promise<void> {
      const at = now();
      const reported = input.databases.length ? input.databases : undefined;
      const agent = await store.heartbeat(input.userId, input.agentId, at, reported);
      if (!agent) throw unknownAgent();
      if (reported && (await newDatabases(input.userId, reported)).fresh.length)
        await addReported(input.userId, input.agentId, reported, at);
      await deps.reconcileJobs(agent.id, input.runningJobs);
    },

    /** The socket closed; `reason` when the gateway closed it knowingly (the owner replaced the API key). */
    disconnected: (userId: string, agentId: string, reason?: OfflineReason) =>
      disconnected(userId, agentId, reason ? { reason } : {}),

    /**
     * The agent said it is stopping (its socket closes a moment later): it is offline from now on,
     * so neither the scheduler nor the user's Trigger Backup or restore picks it, and the jobs it
     * has not started fail with the reason. The disconnect is announced once, here or when the
     * socket closes, whichever comes first.
     */
    async leaving(userId: string, agentId: string, restarting = false): Promise<void> {
      await disconnected(userId, agentId, { leaving: restarting ? 'restart' : 'stop' });
      await deps.abandonJobs?.(agentId, restarting);
      deps.log.info({ userId, agentId, restarting }, 'agent leaving');
    },

    /**
     * What the agent's self-update came to, each outcome announced (and audited) so the user who
     * asked sees the answer. The agent repeats a report until it is acknowledged, so the message
     * ids are not random: an update is one version change; a failure or an 'up to date' carries no
     * attempt id, so reports of a version are told apart by their reason and the hour of the
     * report (a repeat of the same reason within that hour, and JetStream's duplicate window,
     * counts as the same report; another reason, e.g. a refused signature after a failed download,
     * is a new one).
     * The new version needs no write here: the agent registered with it before reporting.
     */
    async updateReported(report: UpdateReport): Promise<void> {
      const agent = await store.get(report.agentId);
      if (!agent || agent.userId !== report.userId || agent.retired) throw unknownAgent();
      const { fromVersion, toVersion } = report;
      if (report.status === 'updated') {
        await deps.events.publish(
          'agent.agent.updated',
          { ...agentEvent(agent), fromVersion, toVersion },
          { id: `${agent.id}:updated:${fromVersion}:${toVersion}` },
        );
      } else if (report.status === 'current') {
        const hour = Math.floor(now().getTime() / HOUR_MS);
        await deps.events.publish(
          'agent.agent.up_to_date',
          { ...agentEvent(agent), version: fromVersion },
          { id: `${agent.id}:up_to_date:${fromVersion}:${hour}` },
        );
      } else {
        const hour = Math.floor(now().getTime() / HOUR_MS);
        const error = report.error ?? '';
        const reason = createHash('sha256').update(error).digest('hex').slice(0, 16);
        await deps.events.publish(
          'agent.agent.update_failed',
          { ...agentEvent(agent), fromVersion, error },
          { id: `${agent.id}:update_failed:${fromVersion}:${hour}:${reason}` },
        );
      }
    },

    /**
     * A Check for Updates that reached no agent (it went offline, or its socket was not back yet)
     * is answered too, in the audit log and on the agent's card: the user asked and waits for it.
     */
    async updateNotDelivered(
      userId: string,
      agentId: string,
      commandId: string,
      error: string,
    ): Promise<void> {
      const agent = await store.get(agentId);
      if (!agent || agent.userId !== userId || agent.retired) return;
      await deps.events.publish(
        'agent.agent.update_failed',
        { ...agentEvent(agent), fromVersion: agent.version, error: updateNotDeliveredReason(error) },
        { id: `${agent.id}:update_failed:${commandId}` },
      );
    },

    /** restart | update | reset. A reset retires this record: the agent comes back with a new instance id. */
    async manage(userId: string, agentId: string, action: ManageAction): Promise<void> {
      const agent = await store.get(agentId);
      if (!agent || agent.userId !== userId || agent.retired) throw unknownAgent();
      // Retired before the agent hears of it: the agent then leaves at once, and on FerretDB (an
      // update rewrites the whole document) the record of its leaving, written a moment later,
      // could otherwise land over the retirement and bring the agent back to the list.
      if (action === 'reset') await store.retire(userId, agentId);
      await deps.dispatch.send({ commandId: deps.dispatch.newCommandId(), userId, agentId, kind: action });
      await deps.events.publish('agent.agent.action_requested', { ...agentEvent(agent), action });
    },

    /** The user's agents (retired ones vanish) with their status. */
    async list(userId: string): Promise<AgentView[]> {
      const at = now();
      return (await store.list(userId)).map((a) => view(a, at));
    },

    /**
     * Removal from the dashboard by its owner (`userId`: only that user's agent, else 404) or by an
     * admin (`adminId`, verified by the caller, who the event names: whoever owns it). The record
     * goes; its backups stay. The gateway closes its socket.
     */
    async remove(agentId: string, by: { userId: string } | { adminId: string }): Promise<void> {
      const userId = 'userId' in by ? by.userId : undefined;
      // Read first: the audit entry names the agent, which is gone after the removal.
      const agent = await store.get(agentId);
      if (!(await store.remove(agentId, userId))) throw unknownAgent();
      if (agent) {
        await deps.events.publish(
          'agent.agent.removed',
          {
            ...agentEvent(agent),
            ...('adminId' in by ? { by: 'admin', actorId: by.adminId } : { by: 'user' }),
          },
          { id: `${agent.id}:removed` },
        );
      }
    },
  };
}
export type Agents = ReturnType<typeof agents>;
