import { storage } from '@coffer/proto';
import { connectEventBus, connectMongo, startGrpcServer, startOpsServer, type Logger } from '@coffer/common';
import type { StorageConfig } from './config.js';
import { createBackend } from './backends/index.js';
import { storageModels } from './model.js';
import { blobStore } from './store.js';
import { STORAGE_STREAMS, startStorageConsumers } from './events.js';
import { cleanup as cleanupFactory } from './domain/cleanup.js';
import { uploads as uploadsFactory } from './domain/uploads.js';
import { blobs as blobsFactory } from './domain/blobs.js';
import { storageHandlers } from './handlers.js';
import { storageMetrics } from './metrics.js';

export interface RunningStorage {
  grpcPort: number;
  opsPort: number;
  /** The shutdown steps, in order: stop taking work, finish it, close connections. */
  shutdownSteps: Array<() => Promise<unknown>>;
}

/**
 * Wires and starts the storage service. main.ts calls this and hands the steps to onShutdown;
 * the service tests call it in-process.
 */
export async function startStorage(config: StorageConfig, log: Logger): Promise<RunningStorage> {
  const backend = createBackend(config);
  await backend.init();
  const conn = await connectMongo(config.MONGODB_URI, config.STORAGE_DB);
  const models = storageModels(conn);
  await Promise.all(Object.values(models).map((m) => m.init()));
  const store = blobStore(models);
  const events = await connectEventBus({
    url: config.NATS_URL,
    name: 'storage',
    log,
    streams: STORAGE_STREAMS,
  });

  const staleAfterMs = config.STORAGE_STALE_UPLOAD_SECONDS * 1000;
  const cleanup = cleanupFactory({ store, backend, log, staleAfterMs });
  const uploads = uploadsFactory({
    store,
    backend,
    cleanup,
    events,
    log,
    staleAfterMs,
    heartbeatMs: Math.max(1000, Math.floor(staleAfterMs / 10)),
  });
  const blobs = blobsFactory({ store, backend, cleanup, log });

  const ops = await startOpsServer({
    service: 'storage',
    port: config.OPS_PORT,
    host: config.OPS_HOST,
    ready: async () => conn.readyState === 1 && !events.nc.isClosed() && (await backend.ping()),
  });
  const metrics = storageMetrics(ops.registry);
  const grpc = await startGrpcServer(config.GRPC_LISTEN, [
    { definition: storage.StorageServiceService, impl: storageHandlers({ log, uploads, blobs, metrics }) },
  ]);
  const consumers = await startStorageConsumers(events, blobs);
  const sweeper = cleanup.start(config.STORAGE_SWEEP_INTERVAL_SECONDS * 1000);
  log.info(
    { grpcPort: grpc.port, opsPort: ops.port, backend: backend.name, db: config.STORAGE_DB },
    'storage ready',
  );

  return {
    grpcPort: grpc.port,
    opsPort: ops.port,
    shutdownSteps: [
      async () => grpc.setServing(false),
      () => sweeper.stop(),
      // Waits for running calls (5 s, then cancels them); cancelled uploads clean up after themselves.
      () => grpc.stop(),
      () => uploads.settled(),
      () => Promise.all(consumers.map((c) => c.stop())),
      () => events.close(),
      () => conn.close(),
      () => ops.close(),
    ],
  };
}
