import type { Readable } from 'node:stream';
import type { sendUnaryData, ServerReadableStream, ServerWritableStream } from '@grpc/grpc-js';
import { z } from 'zod';
import {
  AppError,
  badInput,
  fields,
  parseInput,
  toServiceError,
  unaryHandlers,
  type Logger,
} from '@coffer/common';
import { LIMITS } from '@coffer/contracts';
import type { storage } from '@coffer/proto';
import { MAX_CHUNK, rechunk } from './chunks.js';
import { readFailure, type Blobs } from './domain/blobs.js';
import type { Uploads } from './domain/uploads.js';
import type { StorageMetrics } from './metrics.js';
import type { BlobRecord } from './store.js';

// Ids become parts of object keys: 24 lower-case hex digits, nothing else.
const id = (what: string) => fields.objectId(what).transform((s) => s.toLowerCase());
const userRef = z.object({ userId: id('user') });
const blobRef = z.object({ userId: id('user'), blobId: id('backup') });
const putHeader = blobRef.extend({
  storageLimit: z
    .number({ error: 'Storage limit must be a whole number of bytes' })
    .int('Storage limit must be a whole number of bytes')
    .min(0, 'Storage limit must not be negative'),
  keyFingerprint: z.string().max(LIMITS.keyFingerprint, 'Key fingerprint is too long'),
  lockedUntil: z
    .union([z.literal(''), z.iso.datetime({ error: 'lockedUntil must be an ISO 8601 date' })])
    .optional()
    .transform((s) => (s ? new Date(s) : null)),
});

const toBlobInfo = (r: BlobRecord): storage.BlobInfo => ({
  userId: r.userId,
  blobId: r.blobId,
  size: r.size,
  sha256: r.sha256,
  createdAt: (r.createdAt ?? r.touchedAt).toISOString(),
  keyFingerprint: r.keyFingerprint,
  lockedUntil: r.lockedUntil?.toISOString(),
});

type UnaryPart = Pick<storage.StorageServiceServer, 'stat' | 'delete' | 'usage'>;

/** gRPC edge of storage: validate, call the domain, shape the answer, map errors. */
export function storageHandlers(deps: {
  log: Logger;
  uploads: Pick<Uploads, 'put'>;
  blobs: Blobs;
  metrics: StorageMetrics;
}): storage.StorageServiceServer {
  const { log, uploads, blobs, metrics } = deps;

  const unary = unaryHandlers<UnaryPart>(log, {
    async stat(req) {
      const ref = parseInput(blobRef, req);
      return toBlobInfo(await blobs.stat(ref.userId, ref.blobId));
    },
    async delete(req) {
      const ref = parseInput(blobRef, req);
      await blobs.remove(ref.userId, ref.blobId);
      return {};
    },
    async usage(req) {
      return blobs.usage(parseInput(userRef, req).userId);
    },
  });

  /** Client stream: header, then chunks. Read one message at a time, so the client waits for us. */
  function put(
    call: ServerReadableStream<storage.PutRequest, storage.BlobInfo>,
    callback: sendUnaryData<storage.BlobInfo>,
  ) {
    let cancelled = false;
    const cancel = new AbortController();
    call.on('cancelled', () => {
      cancelled = true; // grpc-js also destroys the stream, which ends the read loop below
      cancel.abort();
    });
    call.on('error', () => {
      // reported through the read loop
    });
    const messages = (call as AsyncIterable<storage.PutRequest>)[Symbol.asyncIterator]();

    async function* chunks(): AsyncGenerator<Buffer> {
      let received = 0;
      for (;;) {
        const next = await messages.next();
        // Without the end marker the sender never finished (a cancel can look like a clean end).
        if (next.done) throw badInput('The upload stopped before its end marker; nothing was stored');
        const msg = next.value;
        if (msg.end) {
          if (msg.end.size !== received) {
            throw badInput(`The upload announced ${msg.end.size} bytes but ${received} arrived`);
          }
          return;
        }
        if (msg.header) throw badInput('Only the first message may carry the header');
        const chunk = msg.chunk;
        if (!chunk || chunk.length === 0) continue;
        if (chunk.length > MAX_CHUNK) throw badInput('A chunk must be at most 1 MiB');
        received += chunk.length;
        metrics.bytesIn.inc(chunk.length);
        yield chunk;
      }
    }

    const run = async () => {
      const first = await messages.next();
      if (first.done || !first.value.header) throw badInput('The first message must be the header');
      return uploads.put(parseInput(putHeader, first.value.header), chunks(), cancel.signal);
    };

    run().then(
      (rec) => {
        metrics.uploads.inc({ result: 'stored' });
        callback(null, toBlobInfo(rec));
      },
      (err: unknown) => {
        if (cancelled) {
          metrics.uploads.inc({ result: 'cancelled' });
          return; // nobody is listening; the upload has already been discarded
        }
        metrics.uploads.inc({ result: err instanceof AppError ? err.code.toLowerCase() : 'failed' });
        if (!(err instanceof AppError)) log.error({ err, rpc: 'put' }, 'rpc failed');
        callback(toServiceError(err));
      },
    );
  }

  /** Server stream: the blob's info, then its bytes in chunks of at most 1 MiB, as fast as the client reads. */
  function get(call: ServerWritableStream<storage.BlobRef, storage.GetResponse>) {
    let cancelled = false;
    let body: Readable | undefined;
    call.on('cancelled', () => {
      cancelled = true;
      body?.destroy();
    });

    const run = async () => {
      const ref = parseInput(blobRef, call.request);
      const opened = await blobs.open(ref.userId, ref.blobId);
      body = opened.body;
      if (cancelled) return body.destroy();
      await send(call, { info: toBlobInfo(opened.record) });
      let sent = 0;
      for await (const chunk of rechunk(body)) {
        if (cancelled) return;
        sent += chunk.length;
        await send(call, { chunk });
        metrics.bytesOut.inc(chunk.length);
      }
      if (sent !== opened.record.size) {
        log.error(
          { ...ref, size: opened.record.size, sent },
          'stored blob is shorter or longer than recorded',
        );
        throw new Error('blob size mismatch');
      }
      call.end();
    };

    run().catch((err: unknown) => {
      body?.destroy();
      if (cancelled) return;
      if (!(err instanceof AppError)) log.error({ err, rpc: 'get' }, 'rpc failed');
      // The backend may also fail part-way through the bytes (S3 gone silent mid-download).
      call.emit('error', toServiceError(err instanceof AppError ? err : (readFailure(err) ?? err)));
    });
  }

  return { ...unary, put, get };
}

/** Writes one message; when the stream's buffer is full, waits for it to drain (or the call to end). */
function send<T>(call: ServerWritableStream<unknown, T>, msg: T): Promise<void> {
  if (call.write(msg)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      call.off('drain', onDrain);
      call.off('cancelled', onGone);
      call.off('close', onGone);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => done();
    const onGone = () => done(new Error('the call ended'));
    call.once('drain', onDrain);
    call.once('cancelled', onGone);
    call.once('close', onGone);
  });
}
