import { Readable } from 'node:stream';
import type { BlobBackend, BlobWriter } from './types.js';

/**
 * In-memory BlobBackend for unit tests. It records every call, can be told to fail a write, and
 * its `maxBuffered` makes `write` wait until the test calls `drain()`, to observe backpressure.
 */
export function memoryBackend(opts: { failWriteAt?: number; maxBuffered?: number } = {}) {
  const objects = new Map<string, Buffer>();
  const uploads = new Map<string, { objectKey: string; parts: Buffer[]; startedAt: Date }>();
  const calls: string[] = [];
  let seq = 0;
  let writes = 0;
  let waiting: Array<() => void> = [];

  const backend: BlobBackend = {
    name: 'fs',
    async init() {},
    async createWriter(objectKey) {
      const ref = `ref${++seq}`;
      uploads.set(ref, { objectKey, parts: [], startedAt: new Date() });
      calls.push(`create ${objectKey}`);
      let buffered = 0;
      const w: BlobWriter = {
        ref,
        async write(chunk) {
          writes++;
          if (opts.failWriteAt !== undefined && writes >= opts.failWriteAt) throw new Error('disk full');
          const u = uploads.get(ref);
          if (!u) throw new Error('upload discarded');
          u.parts.push(Buffer.from(chunk));
          buffered += chunk.length;
          if (opts.maxBuffered !== undefined && buffered >= opts.maxBuffered) {
            await new Promise<void>((resolve) => waiting.push(resolve));
            buffered = 0;
          }
        },
        async commit() {
          const u = uploads.get(ref);
          if (!u) throw new Error('upload discarded');
          uploads.delete(ref);
          objects.set(objectKey, Buffer.concat(u.parts));
          calls.push(`commit ${objectKey}`);
        },
        async abort() {
          uploads.delete(ref);
          calls.push(`abort ${objectKey}`);
        },
      };
      return w;
    },
    async read(objectKey) {
      const data = objects.get(objectKey);
      if (!data) throw new Error('no such object');
      return Readable.from([data]);
    },
    async remove(objectKey) {
      objects.delete(objectKey);
      calls.push(`remove ${objectKey}`);
    },
    async discard(ref) {
      uploads.delete(ref);
      calls.push(`discard ${ref}`);
    },
    async *listIncomplete() {
      for (const [ref, u] of uploads) yield { ref, startedAt: u.startedAt, objectKey: u.objectKey };
    },
    async ping() {
      return true;
    },
  };
  return {
    backend,
    objects,
    uploads,
    calls,
    /** Lets every waiting write go on. */
    drain() {
      const w = waiting;
      waiting = [];
      w.forEach((f) => f());
    },
  };
}
