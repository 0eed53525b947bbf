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

/** The wire form of a message whose only field is `chunk`. */
export function encodeChunk(chunk: Buffer): Buffer {
  const head = 1 + varintLength(chunk.length);
  const out = Buffer.allocUnsafe(head + chunk.length);
  out[0] = CHUNK_TAG;
  let n = chunk.length;
  let at = 1;
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[at] = n;
  chunk.copy(out, head);
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

const onlyChunk = (m: { chunk?: Buffer | undefined }, others: unknown[]) =>
  m.chunk !== undefined && others.every((o) => o === undefined);

export const StorageBlobWire = {
  ...StorageServiceService,
  put: {
    ...StorageServiceService.put,
    requestSerialize: (m: PutRequest): Buffer =>
      onlyChunk(m, [m.header, m.end]) ? encodeChunk(m.chunk!) : StorageServiceService.put.requestSerialize(m),
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
