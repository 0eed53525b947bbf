import { audit } from '@coffer/proto';
import {
  connectEventBus,
  connectMongo,
  createLogger,
  onShutdown,
  startGrpcServer,
  startOpsServer,
} from '@coffer/common';
import { loadAuditConfig } from './config.js';
import { auditModels } from './model.js';
import { auditStore } from './store.js';
import { auditSubscriptions, startAuditConsumers } from './events.js';
import { recorder as recorderFactory } from './domain/recorder.js';
import { auditLogs } from './domain/logs.js';
import { auditHandlers } from './handlers.js';

async function main() {
  const config = loadAuditConfig();
  const log = createLogger('audit', config.LOG_LEVEL);
  const conn = await connectMongo(config.MONGODB_URI, config.AUDIT_DB);
  const models = auditModels(conn);
  await Promise.all(Object.values(models).map((m) => m.init()));
  const store = auditStore(models);
  const events = await connectEventBus({
    url: config.NATS_URL,
    name: 'audit',
    log,
    streams: auditSubscriptions().map((s) => s.stream),
  });

  const grpc = await startGrpcServer(config.GRPC_LISTEN, [
    { definition: audit.AuditServiceService, impl: auditHandlers({ log, logs: auditLogs({ store }) }) },
  ]);
  await startAuditConsumers(events, recorderFactory({ store, log }));
  const ops = await startOpsServer({
    service: 'audit',
    port: config.OPS_PORT,
    host: config.OPS_HOST,
    ready: () => conn.readyState === 1 && !events.nc.isClosed(),
  });
  log.info({ grpcPort: grpc.port, opsPort: ops.port }, 'audit ready');

  onShutdown(log, [
    async () => grpc.setServing(false),
    () => grpc.stop(),
    // Stops the consumers after their in-flight event, then drains NATS, before Mongo closes.
    () => events.close(),
    () => conn.close(),
    () => ops.close(),
  ]);
}

main().catch((err: unknown) => {
  createLogger('audit').fatal({ err }, 'audit failed to start');
  process.exit(1);
});
