import { randomBytes } from 'node:crypto';
import { GetResponse, PutRequest, StorageServiceService } from './gen/coffer/storage.js';
import { decodeChunk, encodeChunk, StorageBlobWire } from './blob-wire.js';

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
