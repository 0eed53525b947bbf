import { once } from 'node:events';
import { createHash } from 'node:crypto';
import type { ClientWritableStream, ServiceError } from '@grpc/grpc-js';
import { fromServiceError } from '@coffer/common';
import type { storage } from '@coffer/proto';

const MiB = 1024 * 1024;

const mapErr = (err: unknown) =>
  err && typeof (err as ServiceError).code === 'number' ? fromServiceError(err as ServiceError) : err;

/** An upload in progress, for tests that cancel or misbehave half-way. */
export function startPut(client: storage.StorageServiceClient) {
  let call!: ClientWritableStream<storage.PutRequest>;
  const result = new Promise<storage.BlobInfo>((resolve, reject) => {
    call = client.put((err, res) => (err ? reject(mapErr(err)) : resolve(res)));
  });
  result.catch(() => undefined); // observed by the caller
  return {
    call,
    result,
    /** Writes one message, waiting while the call's buffer is full (backpressure). */
    async send(msg: storage.PutRequest) {
      if (!call.write(msg)) await Promise.race([once(call, 'drain'), result.then(() => undefined)]);
    },
  };
}

/** Uploads `data` in chunks of `chunkSize` bytes with backpressure. */
export async function putBlob(
  client: storage.StorageServiceClient,
  header: storage.PutHeader,
  data: Buffer | Iterable<Buffer>,
  chunkSize = MiB,
): Promise<storage.BlobInfo> {
  const up = startPut(client);
  try {
    await up.send({ header });
    const pieces = Buffer.isBuffer(data) ? [data] : data;
    let size = 0;
    for (const piece of pieces) {
      for (let off = 0; off < piece.length; off += chunkSize) {
        const chunk = piece.subarray(off, off + chunkSize);
        size += chunk.length;
        await up.send({ chunk });
      }
    }
    await up.send({ end: { size } });
    up.call.end();
  } catch {
    // the server answered early (a refusal); the result says why
  }
  return up.result;
}

/** Downloads a blob: its info, its bytes (or only their count and hash), and the largest message. */
export async function getBlob(
  client: storage.StorageServiceClient,
  ref: storage.BlobRef,
  opts: { keep?: boolean } = { keep: true },
): Promise<{ info?: storage.BlobInfo; data: Buffer; size: number; sha256: string; largestChunk: number }> {
  const call = client.get(ref);
  const parts: Buffer[] = [];
  const hash = createHash('sha256');
  let info: storage.BlobInfo | undefined;
  let size = 0;
  let largestChunk = 0;
  try {
    for await (const msg of call as AsyncIterable<storage.GetResponse>) {
      if (msg.info) info = msg.info;
      if (msg.chunk) {
        size += msg.chunk.length;
        largestChunk = Math.max(largestChunk, msg.chunk.length);
        hash.update(msg.chunk);
        if (opts.keep) parts.push(msg.chunk);
      }
    }
  } catch (err) {
    throw mapErr(err);
  }
  return { info, data: Buffer.concat(parts), size, sha256: hash.digest('hex'), largestChunk };
}
