import { Counter, type Registry } from 'prom-client';

/** Prometheus counters of the storage service, on the ops server's registry. */
export function storageMetrics(registry?: Registry) {
  const registers = registry ? [registry] : [];
  return {
    uploads: new Counter({
      name: 'coffer_storage_uploads_total',
      help: 'Put calls by outcome',
      labelNames: ['result'] as const,
      registers,
    }),
    bytesIn: new Counter({
      name: 'coffer_storage_bytes_received_total',
      help: 'Blob bytes received',
      registers,
    }),
    bytesOut: new Counter({ name: 'coffer_storage_bytes_sent_total', help: 'Blob bytes sent', registers }),
  };
}
export type StorageMetrics = ReturnType<typeof storageMetrics>;
