import { audit } from '@coffer/proto';
import {
  connectServiceBus,
  openServiceDatabase,
  startGrpcServer,
  type Logger,
  type ServiceContext,
  type StartedService,
} from '@coffer/common';
import type { AuditConfig } from './config.js';
import { auditDatabase } from './model.js';
import { auditStore, type AuditStore } from './store.js';
import { auditSubscriptions, startAuditConsumers } from './events.js';
import { recorder as recorderFactory } from './domain/recorder.js';
import { auditLogs } from './domain/logs.js';
import { auditHandlers } from './handlers.js';

/** The audit domain wired from its dependencies; main.ts (through startAudit) and the tests share it. */
export function buildAudit(deps: { store: AuditStore; log: Logger }) {
  const logs = auditLogs({ store: deps.store });
  return {
    logs,
    recorder: recorderFactory({ store: deps.store, log: deps.log }),
    handlers: auditHandlers({ log: deps.log, logs }),
  };
}

/** Connects to Mongo and NATS, then serves gRPC and consumes every audited event. */
export async function startAudit(
  config: AuditConfig,
  { log, identity }: ServiceContext,
): Promise<StartedService> {
  const { conn, models } = await openServiceDatabase(config, config.AUDIT_DB, auditDatabase, log);
  const events = await connectServiceBus(
    config,
    'audit',
    log,
    auditSubscriptions().map((s) => s.stream),
  );
  const built = buildAudit({ store: auditStore(models), log });

  const grpc = await startGrpcServer(
    config.GRPC_LISTEN,
    [{ definition: audit.AuditServiceService, impl: built.handlers }],
    { identity, log },
  );
  await startAuditConsumers(events, built.recorder);

  return {
    ready: () => conn.readyState === 1 && !events.nc.isClosed(),
    info: { grpcPort: grpc.port },
    steps: [
      { name: 'grpc health', stop: async () => grpc.setServing(false) },
      { name: 'grpc', stop: () => grpc.stop() },
      // Stops the consumers after their in-flight event, then drains NATS, before Mongo closes.
      { name: 'nats', stop: () => events.close() },
      { name: 'mongo', stop: () => conn.close() },
    ],
  };
}
