// The blob hops (gateway ⇄ storage) carry the backups themselves, as 1 MiB `chunk` messages.
// ts-proto's codec copies every chunk twice on the way out (the writer's `finish()`, then
// `Buffer.from`) and once on the way in (`Buffer.from(reader.bytes())`), on top of the copy gRPC
// makes to frame the message. This definition of StorageService encodes a message that is only a
// chunk with one copy and decodes it as a view of the received message: the same bytes on the
// wire, so either side may use the generated definition instead.
import { makeGenericClientConstructor, type ChannelCredentials, type ClientOptions } from '@grpc/grpc-js';
import {
  GetResponse,
  PutRequest,
  StorageServiceService,
  type StorageServiceClient,
} from './gen/coffer/storage.js';

/** Field 2, length-delimited: `chunk` in both PutRequest and GetResponse. */
const CHUNK_TAG = 0x12;

function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

/** Writes the tag and length of an `n`-byte chunk at `at`; returns where the chunk's bytes go. */
function writeHead(out: Buffer, at: number, n: number): number {
  out[at++] = CHUNK_TAG;
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[at++] = n;
  return at;
}

/** The wire form of a message whose only field is `chunk`. */
export function encodeChunk(chunk: Buffer): Buffer {
  const out = Buffer.allocUnsafe(1 + varintLength(chunk.length) + chunk.length);
  chunk.copy(out, writeHead(out, 0, chunk.length));
  return out;
}

/** The chunk of a message that is only a chunk (a view, no copy); undefined for any other message. */
export function decodeChunk(bytes: Buffer): Buffer | undefined {
  if (bytes[0] !== CHUNK_TAG) return undefined;
  let len = 0;
  let at = 1;
  for (let scale = 1; at < bytes.length && at <= 5; scale *= 128) {
    const b = bytes[at++]!;
    len += (b & 0x7f) * scale;
    if (b < 0x80) return at + len === bytes.length ? bytes.subarray(at) : undefined;
  }
  return undefined;
}

/** Room in front of a chunk for its tag and length: a length below 2^21 takes at most 3 varint bytes. */
const HEAD_ROOM = 4;
/** The largest chunk a framed buffer holds (HEAD_ROOM's bound). */
export const MAX_FRAMED_CHUNK = 2 ** 21 - 1;

/** A chunk message that carries its own finished wire form (ChunkFramer). */
const WIRE = Symbol('coffer.blob-wire.framed');
type Framed = { [WIRE]?: Buffer };

/**
 * Cuts a byte stream into chunk messages of `chunkSize` bytes with one copy per byte: the bytes go
 * straight into the message's wire form (a buffer with room for the tag and length in front), and
 * the codec hands grpc-js that buffer as it is, where joining the pieces and then encoding the
 * chunk took two. The messages are plain PutRequests too (`chunk` is a view of the same buffer), so
 * the generated codec writes the same bytes. A message's buffer is not reused: grpc-js may keep it
 * (its retry buffer) after the write's callback.
 */
export class ChunkFramer {
  private current: Buffer | undefined;
  private filled = 0;

  constructor(private readonly chunkSize: number) {
    if (!(chunkSize > 0 && chunkSize <= MAX_FRAMED_CHUNK)) throw new RangeError('chunk size out of range');
  }

  /** Copies `bytes` in; `emit` gets each message completed. */
  push(bytes: Buffer, emit: (msg: PutRequest) => void): void {
    let at = 0;
    while (at < bytes.length) {
      this.current ??= Buffer.allocUnsafe(HEAD_ROOM + this.chunkSize);
      const n = bytes.copy(this.current, HEAD_ROOM + this.filled, at, at + this.chunkSize - this.filled);
      this.filled += n;
      at += n;
      if (this.filled === this.chunkSize) emit(this.cut());
    }
  }

  /** The rest (if any) as a last, shorter message. */
  flush(emit: (msg: PutRequest) => void): void {
    if (this.filled > 0) emit(this.cut());
  }

  private cut(): PutRequest {
    const buffer = this.current!;
    const n = this.filled;
    const start = HEAD_ROOM - 1 - varintLength(n);
    writeHead(buffer, start, n);
    this.current = undefined;
    this.filled = 0;
    const msg: PutRequest & Framed = {
      header: undefined,
      chunk: buffer.subarray(HEAD_ROOM, HEAD_ROOM + n),
      end: undefined,
      [WIRE]: buffer.subarray(start, HEAD_ROOM + n),
    };
    return msg;
  }
}

const onlyChunk = (m: { chunk?: Buffer | undefined }, others: unknown[]) =>
  m.chunk !== undefined && others.every((o) => o === undefined);

export const StorageBlobWire = {
  ...StorageServiceService,
  put: {
    ...StorageServiceService.put,
    requestSerialize: (m: PutRequest): Buffer =>
      (m as Framed)[WIRE] ??
      (onlyChunk(m, [m.header, m.end])
        ? encodeChunk(m.chunk!)
        : StorageServiceService.put.requestSerialize(m)),
    requestDeserialize: (bytes: Buffer): PutRequest => {
      const chunk = decodeChunk(bytes);
      return chunk ? { header: undefined, chunk, end: undefined } : PutRequest.decode(bytes);
    },
  },
  get: {
    ...StorageServiceService.get,
    responseSerialize: (m: GetResponse): Buffer =>
      onlyChunk(m, [m.info]) ? encodeChunk(m.chunk!) : StorageServiceService.get.responseSerialize(m),
    responseDeserialize: (bytes: Buffer): GetResponse => {
      const chunk = decodeChunk(bytes);
      return chunk ? { info: undefined, chunk } : GetResponse.decode(bytes);
    },
  },
} as const;

/** A StorageService client that moves chunks with the codec above. */
export const StorageBlobClient = makeGenericClientConstructor(
  StorageBlobWire,
  'coffer.storage.v1.StorageService',
) as unknown as {
  new (
    address: string,
    credentials: ChannelCredentials,
    options?: Partial<ClientOptions>,
  ): StorageServiceClient;
  service: typeof StorageBlobWire;
  serviceName: string;
};
