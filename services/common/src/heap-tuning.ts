import v8 from 'node:v8';

/**
 * For the processes that forward backups (gateway, storage). Every MiB they forward passes through
 * Buffers whose memory lives outside V8's heap, and by default V8 starts a full collection of the
 * whole heap each time such memory has grown by 64 MB, however little of it is still in use: about
 * 40 full collections per GiB forwarded, most of the gateway's CPU. With this V8 option the Buffers
 * count toward the heap's own limit, which grows with what is live, and a short-lived Buffer waits
 * for the next collection it would have been freed in anyway (docs/benchmarks.md, "A hop that
 * only forwards"). Called before the service starts.
 */
export function tuneHeapForForwarding(): void {
  v8.setFlagsFromString('--external-memory-accounted-in-global-limit');
}
