import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable, Transform } from 'node:stream';
import type { ServiceError } from '@grpc/grpc-js';
import { fromServiceError, notFound, unavailable } from '@coffer/common';
import { ChunkFramer, storage, type orchestrator } from '@coffer/proto';

/** Largest gRPC message the gateway sends or expects for blob data (docs/architecture.md, "The backup pipeline":
 * uploads). */
export const MAX_CHUNK = 1024 * 1024;

/**
 * The storage key an orchestrator grant names. A grant without one is a defect of the
 * orchestrator, not of the request: it answers as unavailable rather than guessing a key.
 */
export function grantedBlob(grant: { blob?: orchestrator.BlobKey | undefined }): storage.BlobRef {
  if (!grant.blob?.blobId)
    throw unavailable('The backup service gave no file to stream. Try again in a moment.');
  return { userId: grant.blob.userId, blobId: grant.blob.blobId };
}

const asAppError = (err: unknown) =>
  err && typeof (err as ServiceError).code === 'number' ? fromServiceError(err as ServiceError) : err;

/**
 * Opens a stored blob for streaming: resolves once storage has sent the blob's info (so the
 * caller can set Content-Length before the first byte), then yields the bytes with backpressure.
 */
export function openBlob(
  client: storage.StorageServiceClient,
  ref: { userId: string; blobId: string },
): Promise<{ info: storage.BlobInfo; body: Readable; cancel(): void }> {
  const call = client.get(ref);
  return new Promise((resolve, reject) => {
    let info: storage.BlobInfo | undefined;
    const body = new Transform({
      readableHighWaterMark: 4 * MAX_CHUNK,
      writableObjectMode: true,
      transform(msg: storage.GetResponse, _enc, done) {
        if (msg.info) {
          info = msg.info;
          resolve({ info, body, cancel: () => call.cancel() });
          return done();
        }
        done(null, msg.chunk);
      },
    });
    call.on('error', (err) => {
      const e = asAppError(err);
      if (!info) {
        // Nobody holds `body` yet, so nobody listens for its 'error': destroying it with the
        // error would crash the gateway (storage killed as a download began, faults suite).
        reject(e);
        body.destroy();
        return;
      }
      body.destroy(e as Error);
    });
    call.pipe(body);
    call.on('end', () => {
      if (!info) reject(notFound('Backup file not found'));
    });
  });
}

/**
 * Streams `source` into storage as one blob. Chunks are cut to at most 1 MiB, and the source is
 * read only as fast as the gRPC stream drains, so no hop holds the whole backup. If the source
 * fails or ends early (`complete()` says whether it ended cleanly), the call is cancelled and
 * storage discards what it received. If storage refuses, the source is left alone (unpiped) so
 * the caller can still answer the client before closing it.
 */
export function putBlob(
  client: storage.StorageServiceClient,
  header: storage.PutHeader,
  source: Readable,
  complete: () => boolean = () => true,
): Promise<storage.BlobInfo> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (err: unknown, res?: storage.BlobInfo) => {
      if (settled) return;
      settled = true;
      if (err) reject(asAppError(err));
      else resolve(res!);
    };
    const call = client.put((err, res) => settle(err, res));
    let size = 0;
    // An HTTP body arrives in socket reads of 16-64 KiB: copied once, straight into 1 MiB messages
    // in their wire form (ChunkFramer), gRPC and storage handle 16-64 times fewer messages.
    const framer = new ChunkFramer(MAX_CHUNK);
    const toMessages = new Transform({
      readableObjectMode: true,
      // Two messages ahead of gRPC's own buffer: enough to keep the stream busy.
      readableHighWaterMark: 2,
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        framer.push(chunk, (m) => this.push(m));
        done();
      },
      // Only a source that ended cleanly gets here; storage commits only after this marker.
      flush(done) {
        if (!complete()) return done(new Error('The upload ended before all data arrived'));
        framer.flush((m) => this.push(m));
        done(null, { end: { size } });
      },
    });
    const abort = (err: Error) => {
      source.unpipe(toMessages);
      call.cancel();
      settle(err);
    };
    call.on('error', (err) => {
      source.unpipe(toMessages);
      settle(err);
    });
    source.on('error', abort);
    source.on('close', () => {
      if (!complete()) abort(new Error('The upload ended before all data arrived'));
    });
    call.write({ header });
    source.pipe(toMessages).pipe(call as unknown as NodeJS.WritableStream);
  });
}

/**
 * Answers an HTTP request with an opened blob: status 200, Content-Length, the given headers,
 * then the bytes at the pace the client reads them. A client that goes away cancels the stream.
 */
export async function sendBlob(
  req: IncomingMessage,
  res: ServerResponse,
  blob: Awaited<ReturnType<typeof openBlob>>,
  headers: Record<string, string> = {},
): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/octet-stream');
  res.setHeader('Content-Length', String(blob.info.size));
  res.setHeader('Cache-Control', 'no-store');
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  req.on('close', () => {
    if (!res.writableFinished) blob.cancel();
  });
  await new Promise<void>((resolve) => {
    blob.body.on('error', () => {
      // Headers are out: cutting the connection is how the client learns the file is incomplete.
      res.destroy();
      resolve();
    });
    res.on('close', resolve);
    blob.body.pipe(res);
  });
}
