import { orchestrator } from '@coffer/proto';
import {
  AppError,
  authAdminCheck,
  connectServiceBus,
  openServiceDatabase,
  startGrpcServer,
  watchOverdueBackups,
  zeroJobMetrics,
  type Logger,
  type ServiceContext,
  type StartedService,
} from '@coffer/common';
import type { OrchestratorConfig } from './config.js';
import { orchestratorDatabase } from './migrations.js';
import { mongoStores } from './store/index.js';
import type { Stores } from './store/types.js';
import { ORCHESTRATOR_STREAMS, startOrchestratorConsumers, type OrchestratorEvents } from './events.js';
import {
  authAccounts,
  authPlans,
  cachedPlans,
  storageBlobs,
  type AccountSource,
  type BlobStore,
  type PlanSource,
} from './clients.js';
import { accountCleanup } from './domain/account-cleanup.js';
import { agents as agentsFactory } from './domain/agents.js';
import { backups as backupsFactory } from './domain/backups.js';
import { databases as databasesFactory } from './domain/databases.js';
import { dispatcher } from './domain/dispatch.js';
import { dueMarks } from './domain/due-marks.js';
import { cachedCount, overdueBackups } from './domain/overdue.js';
import { watched } from './domain/jobs.js';
import { restores as restoresFactory } from './domain/restores.js';
import { retentionInForce, retentionPolicyInForce } from './domain/retention-in-force.js';
import { retentionLock as retentionLockFactory } from './domain/retention-lock.js';
import { retentionPreview } from './domain/retention-preview.js';
import { FIRST_BACKUP_GRACE_MINUTES } from './domain/rules.js';
import { settings as settingsFactory } from './domain/settings.js';
import { verifications as verificationsFactory } from './domain/verification.js';
import { retention as retentionFactory } from './jobs/retention.js';
import { scheduler as schedulerFactory } from './jobs/scheduler.js';
import { every } from './jobs/timer.js';
import { watchdog as watchdogFactory } from './jobs/watchdog.js';
import { orchestratorHandlers } from './handlers.js';

const PLAN_CACHE_MS = 60_000;
const OVERDUE_CACHE_MS = 60_000;
const DEFAULT_LOCK_OFF_DELAY_MS = 7 * 24 * 3_600_000;

export interface OrchestratorLimits {
  heartbeatTimeoutMs: number;
  commandTimeoutMs: number;
  jobMaxHours: number;
  /** Milliseconds in one frequency hour of the scheduler (3,600,000 except in tests). */
  hourMs: number;
  /** How long a disconnected agent may take to come back before its running jobs fail. */
  reconnectGraceMs?: number;
  /** How long after the owner asks a retention lock stays on (default 7 days). */
  retentionLockOffDelayMs?: number;
  /** Minutes (of `hourMs`) a newly reported database waits for the user's own first backup. */
  firstBackupGraceMinutes?: number;
}

/**
 * The orchestrator's domain wired from its dependencies: startOrchestrator hands in the mongoose
 * stores, NATS and the gRPC clients; test-world.ts the in-memory fakes and a settable clock.
 */
export function buildOrchestrator(deps: {
  stores: Stores;
  events: OrchestratorEvents;
  plans: PlanSource;
  /** Plans for the timers' passes over every user (cached); the user's own calls read `plans`. */
  jobPlans?: PlanSource;
  /** Whether an account is banned or gone: the scheduler dispatches nothing for it. */
  accounts?: AccountSource;
  blobs: BlobStore;
  now: () => Date;
  limits: OrchestratorLimits;
  log: Pick<Logger, 'info' | 'warn' | 'debug'>;
}) {
  const { stores, events, plans, blobs, now, log, limits } = deps;
  const jobPlans = deps.jobPlans ?? plans;
  const { heartbeatTimeoutMs } = limits;
  zeroJobMetrics();

  const lock = retentionLockFactory({
    store: stores.settings,
    retentionOf: retentionInForce({ settings: stores.settings, plans, log }),
    events,
    turnOffDelayMs: limits.retentionLockOffDelayMs ?? DEFAULT_LOCK_OFF_DELAY_MS,
    now,
    log,
  });
  const dispatch = dispatcher({ agents: stores.agents, events, now, heartbeatTimeoutMs });
  const due = dueMarks({ databases: stores.databases, retentionDue: stores.retentionDue, now });
  const databases = databasesFactory({
    store: stores.databases,
    plans,
    events,
    changed: due.databasesChanged,
  });
  const backups = backupsFactory({
    store: stores.backups,
    restores: stores.restores,
    databases,
    dispatch,
    plans,
    blobs,
    events,
    lockDateFor: lock.lockDateFor,
    finished: due.backupFinished,
    now,
    log,
  });
  const restores = restoresFactory({
    store: stores.restores,
    backups: stores.backups,
    databases,
    agents: stores.agents,
    dispatch,
    plans,
    events,
    now,
    log,
  });
  const verifications = verificationsFactory({
    store: stores.verifications,
    backups: stores.backups,
    databases: stores.databases,
    restores: stores.restores,
    dispatch,
    events,
    now,
    log,
  });
  const watchdog = watchdogFactory({
    jobs: [watched(backups.lifecycle), watched(restores.lifecycle), watched(verifications.lifecycle)],
    agents: stores.agents,
    now,
    limits: {
      commandTimeoutMs: limits.commandTimeoutMs,
      heartbeatTimeoutMs,
      jobMaxHours: limits.jobMaxHours,
      reconnectGraceMs: limits.reconnectGraceMs,
    },
    log,
  });
  const agents = agentsFactory({
    store: stores.agents,
    leases: stores.leases,
    databaseStore: stores.databases,
    databases,
    dispatch,
    reconcileJobs: (agentId, running) => watchdog.heartbeat(agentId, running),
    abandonJobs: (agentId, restarting) => watchdog.agentLeaving(agentId, restarting),
    registered: due.agentRegistered,
    events,
    now,
    heartbeatTimeoutMs,
    log,
  });
  const settings = settingsFactory({ store: stores.settings, plans, events, changed: due.settingsChanged });
  const scheduler = schedulerFactory({
    stores,
    backups,
    databases,
    dispatch,
    plans: jobPlans,
    accounts: deps.accounts,
    events,
    now,
    hourMs: limits.hourMs,
    firstBackupGraceMinutes: limits.firstBackupGraceMinutes ?? FIRST_BACKUP_GRACE_MINUTES,
    heartbeatTimeoutMs,
    log,
  });
  const retention = retentionFactory({
    stores,
    backups,
    policyOf: retentionPolicyInForce({ settings: stores.settings, plans: jobPlans, log }),
    now,
    log,
  });
  const cleanup = accountCleanup({ stores, now, log });
  const overdue = overdueBackups({ stores, plans: jobPlans, now, hourMs: limits.hourMs });
  const preview = retentionPreview({
    backups: stores.backups,
    verifications: stores.verifications,
    plans,
    retentionOf: retentionInForce({ settings: stores.settings, plans, log }),
    now,
  });
  return {
    dispatch,
    databases,
    backups,
    restores,
    verifications,
    watchdog,
    agents,
    settings,
    lock,
    scheduler,
    retention,
    cleanup,
    preview,
    overdue,
  };
}
export type Orchestrator = ReturnType<typeof buildOrchestrator>;

/** Connects to Mongo, NATS, auth and storage; serves gRPC, consumes events and runs the timers. */
export async function startOrchestrator(
  config: OrchestratorConfig,
  { log, identity }: ServiceContext,
): Promise<StartedService> {
  const { conn, models } = await openServiceDatabase(
    config,
    config.ORCHESTRATOR_DB,
    orchestratorDatabase,
    log,
  );
  const events = await connectServiceBus(config, 'backup-orchestrator', log, ORCHESTRATOR_STREAMS);
  const plans = authPlans(config.AUTH_GRPC, identity);
  const blobs = storageBlobs(config.STORAGE_GRPC, identity);
  const accounts = authAccounts(config.AUTH_GRPC, identity);
  const admins = authAdminCheck(config.AUTH_GRPC, identity);
  const o = buildOrchestrator({
    stores: mongoStores(models),
    events,
    plans,
    jobPlans: cachedPlans(plans, PLAN_CACHE_MS),
    accounts,
    blobs,
    now: () => new Date(),
    limits: {
      heartbeatTimeoutMs: config.HEARTBEAT_TIMEOUT_MS,
      commandTimeoutMs: config.COMMAND_TIMEOUT_MS,
      jobMaxHours: config.JOB_MAX_HOURS,
      hourMs: config.SCHEDULER_SLOT_SECONDS * 1000,
      reconnectGraceMs: config.AGENT_RECONNECT_GRACE_MS,
      retentionLockOffDelayMs: config.RETENTION_LOCK_OFF_DELAY_SECONDS * 1000,
      firstBackupGraceMinutes: config.FIRST_BACKUP_GRACE_MINUTES,
    },
    log,
  });

  watchOverdueBackups(cachedCount(o.overdue, OVERDUE_CACHE_MS));

  const grpc = await startGrpcServer(
    config.GRPC_LISTEN,
    [
      {
        definition: orchestrator.OrchestratorServiceService,
        impl: orchestratorHandlers({ log, ...o, adminCheck: admins.check }),
      },
    ],
    { identity, log },
  );
  await startOrchestratorConsumers(events, {
    userDeleted: ({ userId }) => o.cleanup.userDeleted(userId),
    planChanged: async ({ userId }) => {
      try {
        await o.settings.clampToPlan(userId);
      } catch (err) {
        // A user deleted since the change has no plan left to clamp to; retrying would loop.
        if (!(err instanceof AppError && err.kind === 'NOT_FOUND')) throw err;
      }
    },
    scheduleDue: async (data) => {
      await o.scheduler.due(data);
    },
  });
  const timers = config.JOBS_ENABLED
    ? [
        every('scheduler', config.SCHEDULER_TICK_MS, () => o.scheduler.tick(), log),
        every('retention', config.RETENTION_TICK_MS, () => o.retention.tick(), log),
        every('retention-lock', config.RETENTION_TICK_MS, () => o.lock.settleDue(), log),
        every('watchdog', config.WATCHDOG_TICK_MS, () => o.watchdog.tick(), log),
      ]
    : [];

  return {
    ready: () => conn.readyState === 1 && !events.nc.isClosed(),
    info: { grpcPort: grpc.port },
    steps: [
      { name: 'grpc health', stop: async () => grpc.setServing(false) },
      // Timers finish their current pass; no new pass starts.
      { name: 'timers', stop: () => Promise.all(timers.map((t) => t.stop())) },
      { name: 'grpc', stop: () => grpc.stop() },
      // Stops the consumers after their in-flight event, then drains NATS, before Mongo closes.
      { name: 'nats', stop: () => events.close() },
      {
        name: 'grpc clients',
        stop: async () => {
          plans.close();
          accounts.close();
          admins.close();
          blobs.close();
        },
      },
      { name: 'mongo', stop: () => conn.close() },
    ],
  };
}
