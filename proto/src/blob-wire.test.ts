import { randomBytes } from 'node:crypto';
import { GetResponse, PutRequest, StorageServiceService } from './gen/coffer/storage.js';
import { ChunkFramer, decodeChunk, encodeChunk, StorageBlobWire } from './blob-wire.js';

const generated = StorageServiceService;
const fast = StorageBlobWire;

describe('the blob hops’ chunk codec', () => {
  // Sizes around each varint length boundary, and the 1 MiB the hops send.
  const sizes = [0, 1, 127, 128, 16_383, 16_384, 1024 * 1024, 2_097_151, 2_097_152];

  // Buffers compared with equals(): jest's toEqual takes seconds per MiB.
  it.each(sizes)('writes the bytes ts-proto writes for a %i-byte chunk, both messages', (n) => {
    const chunk = randomBytes(n);
    const put: PutRequest = { header: undefined, chunk, end: undefined };
    expect(fast.put.requestSerialize(put).equals(generated.put.requestSerialize(put))).toBe(true);
    const get: GetResponse = { info: undefined, chunk };
    expect(fast.get.responseSerialize(get).equals(generated.get.responseSerialize(get))).toBe(true);
  });

  it.each(sizes)('reads back a %i-byte chunk written by ts-proto, as a view of the message', (n) => {
    const chunk = randomBytes(n);
    const wire = generated.put.requestSerialize({ header: undefined, chunk, end: undefined });
    const put = fast.put.requestDeserialize(wire);
    expect(put.header).toBeUndefined();
    expect(put.end).toBeUndefined();
    expect(put.chunk!.equals(chunk)).toBe(true);
    expect(put.chunk!.buffer).toBe(wire.buffer); // no copy
    const get = fast.get.responseDeserialize(generated.get.responseSerialize({ info: undefined, chunk }));
    expect(get.info).toBeUndefined();
    expect(get.chunk!.equals(chunk)).toBe(true);
  });

  it('leaves every other message to the generated codec, both ways', () => {
    const header = { userId: 'u1', blobId: 'b1', storageLimit: 0, keyFingerprint: 'f' };
    const puts: PutRequest[] = [
      { header, chunk: undefined, end: undefined },
      { header: undefined, chunk: undefined, end: { size: 5 } },
    ];
    for (const m of puts) {
      const wire = fast.put.requestSerialize(m);
      expect(wire).toEqual(generated.put.requestSerialize(m));
      expect(fast.put.requestDeserialize(wire)).toEqual(m);
    }
    const info: GetResponse = {
      info: { userId: 'u1', blobId: 'b1', size: 7, sha256: 'ab', createdAt: 'now', keyFingerprint: 'f' },
      chunk: undefined,
    };
    const wire = fast.get.responseSerialize(info);
    expect(wire).toEqual(generated.get.responseSerialize(info));
    expect(fast.get.responseDeserialize(wire)).toEqual(info);
  });

  it('does not take a chunk followed by another field for a chunk-only message', () => {
    const chunk = randomBytes(10);
    const end = generated.put.requestSerialize({ header: undefined, chunk: undefined, end: { size: 10 } });
    const both = Buffer.concat([encodeChunk(chunk), end]);
    expect(decodeChunk(both)).toBeUndefined();
    expect(fast.put.requestDeserialize(both)).toEqual(PutRequest.decode(both));
    expect(decodeChunk(encodeChunk(chunk).subarray(0, 8))).toBeUndefined(); // cut short
  });
});

describe('the chunk framer', () => {
  /** Feeds `source` to a framer in pieces of the given sizes, then flushes; returns the messages. */
  function frame(source: Buffer, chunkSize: number, pieces: number[]): PutRequest[] {
    const framer = new ChunkFramer(chunkSize);
    const out: PutRequest[] = [];
    let at = 0;
    for (let i = 0; at < source.length; i++) {
      const n = pieces[i % pieces.length]!;
      framer.push(source.subarray(at, at + n), (m) => out.push(m));
      at += n;
    }
    framer.flush((m) => out.push(m));
    return out;
  }

  it.each([
    ['1 MiB messages from 64 KiB reads', 1024 * 1024, [65_536], 3 * 1024 * 1024 + 5],
    ['uneven reads across message bounds', 1000, [333, 1, 4096, 17], 10_001],
    ['a length at a varint bound', 16_384, [10_000], 16_384 * 2 + 127],
  ])(
    'cuts %s into full chunks and a last short one, each the generated wire form',
    (_what, size, pieces, total) => {
      const source = randomBytes(total);
      const messages = frame(source, size, pieces);
      expect(messages.map((m) => m.chunk!.length)).toEqual([
        ...Array.from({ length: Math.floor(total / size) }, () => size),
        total % size,
      ]);
      expect(Buffer.concat(messages.map((m) => m.chunk!)).equals(source)).toBe(true);
      for (const m of messages) {
        // The framed form, the generated codec's and the plain fast path's are the same bytes.
        const plain: PutRequest = { header: undefined, chunk: Buffer.from(m.chunk!), end: undefined };
        expect(fast.put.requestSerialize(m).equals(generated.put.requestSerialize(plain))).toBe(true);
        expect(fast.put.requestDeserialize(fast.put.requestSerialize(m)).chunk!.equals(m.chunk!)).toBe(true);
      }
    },
  );

  it('sends nothing for an empty stream, and refuses a chunk size its head room cannot frame', () => {
    expect(frame(Buffer.alloc(0), 1024, [1])).toEqual([]);
    expect(() => new ChunkFramer(0)).toThrow(RangeError);
    expect(() => new ChunkFramer(2 ** 21)).toThrow(RangeError);
  });
});
