import type { Registry } from 'prom-client';
import { StorageBlobWire } from '@coffer/proto';
import {
  connectServiceBus,
  openServiceDatabase,
  startGrpcServer,
  type EventBus,
  type Logger,
  type ServiceContext,
  type StartedService,
} from '@coffer/common';
import type { StorageConfig } from './config.js';
import { createBackend, type BlobBackend } from './backends/index.js';
import { storageDatabase } from './model.js';
import { blobStore, type BlobStore } from './store.js';
import { STORAGE_STREAMS, startStorageConsumers } from './events.js';
import { cleanup as cleanupFactory } from './domain/cleanup.js';
import { uploads as uploadsFactory } from './domain/uploads.js';
import { blobs as blobsFactory } from './domain/blobs.js';
import { storageHandlers } from './handlers.js';
import { storageMetrics } from './metrics.js';

/** The storage domain wired from its dependencies; startStorage and the tests share it. */
export function buildStorage(deps: {
  store: BlobStore;
  backend: BlobBackend;
  events: Pick<EventBus, 'publish'>;
  log: Logger;
  staleAfterMs: number;
  registry?: Registry;
}) {
  const { store, backend, log, staleAfterMs } = deps;
  const cleanup = cleanupFactory({ store, backend, log, staleAfterMs });
  const uploads = uploadsFactory({
    store,
    backend,
    cleanup,
    events: deps.events,
    log,
    staleAfterMs,
    heartbeatMs: Math.max(1000, Math.floor(staleAfterMs / 10)),
  });
  const blobs = blobsFactory({ store, backend, cleanup, log });
  const handlers = storageHandlers({ log, uploads, blobs, metrics: storageMetrics(deps.registry) });
  return { cleanup, uploads, blobs, handlers };
}

/**
 * Opens the blob backend, Mongo and NATS; serves gRPC, consumes account deletions and sweeps
 * stale uploads. main.ts runs it through runService; the service tests call it in-process.
 */
export async function startStorage(
  config: StorageConfig,
  { log, registry, identity }: ServiceContext,
): Promise<StartedService & { grpcPort: number }> {
  const backend = createBackend(config);
  await backend.init();
  const { conn, models } = await openServiceDatabase(config, config.STORAGE_DB, storageDatabase, log);
  const events = await connectServiceBus(config, 'storage', log, STORAGE_STREAMS);
  const built = buildStorage({
    store: blobStore(models),
    backend,
    events,
    log,
    staleAfterMs: config.STORAGE_STALE_UPLOAD_SECONDS * 1000,
    registry,
  });

  const grpc = await startGrpcServer(
    config.GRPC_LISTEN,
    [
      // The generated definition with a codec that spares two copies of every chunk.
      { definition: StorageBlobWire, impl: built.handlers },
    ],
    { identity, log },
  );
  const consumers = await startStorageConsumers(events, built.blobs);
  const sweeper = built.cleanup.start(config.STORAGE_SWEEP_INTERVAL_SECONDS * 1000);

  return {
    grpcPort: grpc.port,
    ready: async () => conn.readyState === 1 && !events.nc.isClosed() && (await backend.ping()),
    info: { grpcPort: grpc.port, backend: backend.name, db: config.STORAGE_DB },
    steps: [
      { name: 'grpc health', stop: async () => grpc.setServing(false) },
      { name: 'sweeper', stop: () => sweeper.stop() },
      // Waits for running calls (5 s, then cancels them); cancelled uploads clean up after themselves.
      { name: 'grpc', stop: () => grpc.stop() },
      { name: 'uploads', stop: () => built.uploads.settled() },
      { name: 'consumers', stop: () => Promise.all(consumers.map((c) => c.stop())) },
      { name: 'nats', stop: () => events.close() },
      { name: 'mongo', stop: () => conn.close() },
    ],
  };
}
