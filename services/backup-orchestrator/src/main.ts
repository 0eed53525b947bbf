import { orchestrator } from '@coffer/proto';
import {
  connectEventBus,
  connectMongo,
  createLogger,
  onShutdown,
  startGrpcServer,
  startOpsServer,
} from '@coffer/common';
import { loadOrchestratorConfig } from './config.js';
import { orchestratorModels } from './model.js';
import { mongoStores } from './store/index.js';
import { ORCHESTRATOR_STREAMS, startOrchestratorConsumers } from './events.js';
import { authPlans, cachedPlans, storageBlobs } from './clients.js';
import { accountCleanup } from './domain/account-cleanup.js';
import { agents as agentsFactory } from './domain/agents.js';
import { backups as backupsFactory } from './domain/backups.js';
import { databases as databasesFactory } from './domain/databases.js';
import { dispatcher } from './domain/dispatch.js';
import { watched } from './domain/jobs.js';
import { restores as restoresFactory } from './domain/restores.js';
import { settings as settingsFactory } from './domain/settings.js';
import { retention as retentionFactory } from './jobs/retention.js';
import { scheduler as schedulerFactory } from './jobs/scheduler.js';
import { every } from './jobs/timer.js';
import { watchdog as watchdogFactory } from './jobs/watchdog.js';
import { orchestratorHandlers } from './handlers.js';

const PLAN_CACHE_MS = 60_000;

async function main() {
  const config = loadOrchestratorConfig();
  const log = createLogger('backup-orchestrator', config.LOG_LEVEL);
  const conn = await connectMongo(config.MONGODB_URI, config.ORCHESTRATOR_DB);
  const models = orchestratorModels(conn);
  await Promise.all(Object.values(models).map((m) => m.init()));
  const stores = mongoStores(models);
  const events = await connectEventBus({
    url: config.NATS_URL,
    name: 'backup-orchestrator',
    log,
    streams: ORCHESTRATOR_STREAMS,
  });
  const plans = authPlans(config.AUTH_GRPC);
  const jobPlans = cachedPlans(plans, PLAN_CACHE_MS);
  const blobs = storageBlobs(config.STORAGE_GRPC);
  const now = () => new Date();
  const heartbeatTimeoutMs = config.HEARTBEAT_TIMEOUT_MS;

  const dispatch = dispatcher({ agents: stores.agents, events, now, heartbeatTimeoutMs });
  const databases = databasesFactory({ store: stores.databases, plans });
  const backups = backupsFactory({
    store: stores.backups,
    restores: stores.restores,
    databases,
    dispatch,
    plans,
    blobs,
    events,
    now,
    log,
  });
  const restores = restoresFactory({
    store: stores.restores,
    backups: stores.backups,
    databases,
    dispatch,
    plans,
    events,
    now,
    log,
  });
  const watchdog = watchdogFactory({
    jobs: [watched(backups.lifecycle), watched(restores.lifecycle)],
    agents: stores.agents,
    now,
    limits: {
      commandTimeoutMs: config.COMMAND_TIMEOUT_MS,
      heartbeatTimeoutMs,
      jobMaxHours: config.JOB_MAX_HOURS,
    },
    log,
  });
  const agents = agentsFactory({
    store: stores.agents,
    databaseStore: stores.databases,
    databases,
    dispatch,
    reconcileJobs: (agentId, running) => watchdog.heartbeat(agentId, running),
    events,
    now,
    heartbeatTimeoutMs,
    log,
  });
  const settings = settingsFactory({ store: stores.settings, plans, events });
  const scheduler = schedulerFactory({
    stores,
    backups,
    databases,
    dispatch,
    plans: jobPlans,
    events,
    now,
    hourMs: config.SCHEDULER_SLOT_SECONDS * 1000,
    heartbeatTimeoutMs,
    log,
  });
  const retention = retentionFactory({ stores, backups, plans: jobPlans, now, log });
  const cleanup = accountCleanup({ stores, blobs, log });

  const grpc = await startGrpcServer(config.GRPC_LISTEN, [
    {
      definition: orchestrator.OrchestratorServiceService,
      impl: orchestratorHandlers({ log, agents, databases, backups, restores, settings }),
    },
  ]);
  await startOrchestratorConsumers(events, {
    userDeleted: ({ userId }) => cleanup.userDeleted(userId),
    scheduleDue: async (data) => {
      await scheduler.due(data);
    },
  });
  const timers = config.JOBS_ENABLED
    ? [
        every('scheduler', config.SCHEDULER_TICK_MS, () => scheduler.tick(), log),
        every('retention', config.RETENTION_TICK_MS, () => retention.tick(), log),
        every('watchdog', config.WATCHDOG_TICK_MS, () => watchdog.tick(), log),
      ]
    : [];

  const ops = await startOpsServer({
    service: 'backup-orchestrator',
    port: config.OPS_PORT,
    host: config.OPS_HOST,
    ready: () => conn.readyState === 1 && !events.nc.isClosed(),
  });
  log.info({ grpcPort: grpc.port, opsPort: ops.port }, 'backup-orchestrator ready');

  onShutdown(log, [
    async () => grpc.setServing(false),
    // Timers finish their current pass; no new pass starts.
    () => Promise.all(timers.map((t) => t.stop())),
    () => grpc.stop(),
    // Stops the consumers after their in-flight event, then drains NATS, before Mongo closes.
    () => events.close(),
    async () => {
      plans.close();
      blobs.close();
    },
    () => conn.close(),
    () => ops.close(),
  ]);
}

main().catch((err: unknown) => {
  createLogger('backup-orchestrator').fatal({ err }, 'backup-orchestrator failed to start');
  process.exit(1);
});
