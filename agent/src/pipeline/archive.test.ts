import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BSON } from 'mongodb';
import { discard } from '../util/streams.js';
import { ArchiveFormatError, ArchiveScanner } from './archive.js';

const TERM = Buffer.from([0xff, 0xff, 0xff, 0xff]);
const MAGIC = Buffer.from([0x6d, 0xe2, 0x99, 0x81]);
const doc = (d: object) => Buffer.from(BSON.serialize(d));

/** A mongodump archive built by the spec (mongo-tools common/archive/spec.md), interleaved. */
function archive(): Buffer {
  const meta = (collection: string) =>
    doc({ db: 'shop', collection, metadata: '{"indexes":[]}', size: 0, type: '' });
  const seg = (collection: string, docs: object[]) => [
    doc({ db: 'shop', collection, EOF: false, CRC: 0n }),
    ...docs.map(doc),
    TERM,
  ];
  const eof = (collection: string) => [doc({ db: 'shop', collection, EOF: true, CRC: 0n }), TERM];
  return Buffer.concat([
    MAGIC,
    doc({ concurrent_collections: 4, version: '0.1', server_version: '7.0.77', tool_version: 'test' }),
    meta('orders'),
    meta('with space'),
    meta('empty'),
    TERM,
    ...seg('orders', [{ _id: 1 }, { _id: 2, big: 'x'.repeat(10_000) }]),
    ...seg('with space', [{ _id: 'a' }]),
    ...seg('orders', [{ _id: 3 }]),
    ...eof('with space'),
    ...eof('empty'),
    ...eof('orders'),
  ]);
}

async function scan(data: Buffer, pieceSize: number, strict = true): Promise<ArchiveScanner> {
  const pieces: Buffer[] = [];
  for (let i = 0; i < data.length; i += pieceSize) pieces.push(data.subarray(i, i + pieceSize));
  const scanner = new ArchiveScanner({ strict });
  await pipeline(Readable.from(pieces), scanner, discard());
  return scanner;
}

describe('ArchiveScanner', () => {
  it.each([1, 3, 7, 4096, 1 << 20])(
    'counts documents per collection whatever the read size (%i)',
    async (size) => {
      const s = await scan(archive(), size);
      expect(s.prelude).toMatchObject({ formatVersion: '0.1', serverVersion: '7.0.77', toolVersion: 'test' });
      expect(s.prelude!.collections.map((c) => c.collection)).toEqual(['orders', 'with space', 'empty']);
      expect(Object.fromEntries(s.counts)).toEqual({ 'shop.orders': 3, 'shop.with space': 1 });
      expect(s.documents).toBe(4);
      expect(s.sourceDatabases).toEqual(['shop']);
      expect([...s.finished].sort()).toEqual(['shop.empty', 'shop.orders', 'shop.with space']);
      expect(s.bytes).toBe(archive().length);
    },
  );

  it('passes every byte through unchanged', async () => {
    const out: Buffer[] = [];
    const s = new ArchiveScanner({ strict: true });
    s.on('data', (b: Buffer) => out.push(b));
    await pipeline(Readable.from([archive()]), s);
    expect(Buffer.concat(out).equals(archive())).toBe(true);
  });

  it('accepts an archive of a database without collections', async () => {
    const empty = Buffer.concat([
      MAGIC,
      doc({ version: '0.1', server_version: 'x', tool_version: 'y' }),
      TERM,
    ]);
    const s = await scan(empty, 5);
    expect(s.prelude?.collections).toEqual([]);
    expect(s.documents).toBe(0);
  });

  it.each<[string, (a: Buffer) => Buffer, RegExp]>([
    ['not an archive', () => Buffer.from('hello world, not an archive'), /not a mongodump archive/],
    ['truncated in a document', (a) => a.subarray(0, a.length - 30), /ends/],
    ['missing the last EOF markers', (a) => a.subarray(0, a.length - 50), /ends/],
    [
      'an impossible length',
      (a) => Buffer.concat([a.subarray(0, 4), Buffer.from([1, 0, 0, 0]), a.subarray(8)]),
      /impossible length/,
    ],
  ])('strict mode rejects %s', async (_name, mutate, message) => {
    await expect(scan(mutate(archive()), 64)).rejects.toThrow(ArchiveFormatError);
    await expect(scan(mutate(archive()), 64)).rejects.toThrow(message);
  });

  it('lenient mode keeps the bytes flowing and records why it stopped', async () => {
    const s = await scan(Buffer.from('definitely not an archive'), 4, false);
    expect(s.failed).toMatch(/not a mongodump archive/);
    expect(s.bytes).toBe(25);
  });
});
