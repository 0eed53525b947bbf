import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BSON, Long, type Document } from 'mongodb';
import { buildArchive } from '../testing/archive-builder.js';
import { discard } from '../util/streams.js';
import { ArchiveScanner } from './archive.js';
import { canonicalIndex, DocumentDigest, firstDifference, indexesFromMetadata } from './digest.js';

const bson = (d: Document) => BSON.serialize(d);
const digestOf = (docs: Document[]) => {
  const d = new DocumentDigest();
  for (const doc of docs) d.addDocument(bson(doc));
  return d.hex();
};

const docs = [
  { _id: 1, a: 'x' },
  { _id: 2, b: [1, 2] },
  { _id: 3, c: { d: 1.5 } },
];

describe('the document digest', () => {
  it('does not depend on the order of the documents', () => {
    expect(digestOf(docs)).toBe(digestOf([docs[2]!, docs[0]!, docs[1]!]));
  });

  it('changes when one document changes, even only a type or field order', () => {
    const base = digestOf(docs);
    expect(digestOf([docs[0]!, docs[1]!, { _id: 3, c: { d: 1.6 } }])).not.toBe(base);
    expect(digestOf([docs[0]!, docs[1]!, { _id: 3, c: { d: Long.fromNumber(1) } }])).not.toBe(
      digestOf([docs[0]!, docs[1]!, { _id: 3, c: { d: 1 } }]),
    );
    expect(digestOf([{ a: 1, b: 2 }])).not.toBe(digestOf([{ b: 2, a: 1 }]));
  });

  it('counts duplicates (a sum, not XOR: a pair of equal documents does not cancel out)', () => {
    const one = { a: 1 };
    expect(digestOf([one, one])).not.toBe(digestOf([]));
    expect(digestOf([one, one, one])).not.toBe(digestOf([one]));
    expect(digestOf([])).toBe('0'.repeat(64));
  });

  it('carries across all 256 bits (sum modulo 2^256)', () => {
    const d = new DocumentDigest();
    d.addHash(Buffer.alloc(32, 0xff));
    d.addHash(Buffer.concat([Buffer.alloc(31), Buffer.from([1])]));
    expect(d.hex()).toBe('0'.repeat(64));
    expect(d.count).toBe(2);
  });

  it('is the same whether the archive streams it in pieces or the documents are hashed whole', async () => {
    const archive = buildArchive('shop', [
      { name: 'orders', documents: docs, indexes: [{ v: 2, key: { _id: 1 }, name: '_id_' }] },
      { name: 'empty', documents: [] },
    ]);
    const scanner = new ArchiveScanner({ strict: true, digest: true });
    // One byte at a time: every document's hash is fed across many chunks.
    const pieces = Array.from(archive, (b) => Buffer.from([b]));
    await pipeline(Readable.from(pieces), scanner, discard());
    expect(scanner.summary()).toEqual([
      { name: 'orders', documents: 3, digest: digestOf(docs), indexes: ['{"key":{"_id":1},"name":"_id_"}'] },
      { name: 'empty', documents: 0, digest: '0'.repeat(64), indexes: ['{"key":{"_id":1},"name":"_id_"}'] },
    ]);
  });

  it('gives no summary unless asked, or when the archive could not be read', async () => {
    const plain = new ArchiveScanner({ strict: true });
    await pipeline(Readable.from([buildArchive('shop', [{ name: 'o', documents: docs }])]), plain, discard());
    expect(plain.summary()).toBeUndefined();
    const cut = new ArchiveScanner({ strict: false, digest: true });
    const whole = buildArchive('shop', [{ name: 'o', documents: docs }]);
    await pipeline(Readable.from([whole.subarray(0, whole.length - 20)]), cut, discard());
    expect(cut.summary()).toBeUndefined();
  });
});

describe('index definitions', () => {
  it('compare what mongodump recorded with what the server lists', () => {
    // The archive's metadata is canonical Extended JSON; listIndexes gives plain numbers, options
    // in another order, and the bookkeeping fields v and ns.
    const metadata = JSON.stringify({
      indexes: [
        {
          v: { $numberInt: '2' },
          key: { b: { $numberInt: '1' }, a: { $numberInt: '-1' } },
          name: 'b_1_a_-1',
          unique: true,
        },
      ],
    });
    const listed = {
      unique: true,
      name: 'b_1_a_-1',
      key: { b: 1, a: Long.fromNumber(-1) },
      v: 2,
      ns: 'shop.o',
    };
    expect(indexesFromMetadata(metadata)).toEqual([canonicalIndex(listed)]);
    // The key's order is part of the index.
    expect(canonicalIndex({ ...listed, key: { a: -1, b: 1 } })).not.toBe(canonicalIndex(listed));
    expect(indexesFromMetadata('not json')).toEqual([]);
  });
});

describe('firstDifference', () => {
  const summary = [
    { name: 'a', documents: 2, digest: 'a'.repeat(64), indexes: ['i1'] },
    { name: 'b', documents: 1, digest: 'b'.repeat(64), indexes: [] },
  ];
  it('finds nothing when the restore matches', () => {
    expect(firstDifference(summary, [...summary].reverse())).toBeUndefined();
  });
  it('names the collection and what differs, expected vs found', () => {
    expect(firstDifference(summary, [summary[1]!])).toEqual({
      collection: 'a',
      what: 'collection',
      expected: 'present',
      found: 'missing',
    });
    expect(firstDifference(summary, [{ ...summary[0]!, documents: 1 }, summary[1]!])).toMatchObject({
      collection: 'a',
      what: 'documents',
      expected: '2',
      found: '1',
    });
    expect(firstDifference(summary, [{ ...summary[0]!, indexes: [] }, summary[1]!])).toMatchObject({
      what: 'indexes',
      expected: 'i1',
    });
    expect(firstDifference(summary, [summary[0]!, { ...summary[1]!, digest: 'c'.repeat(64) }])).toMatchObject(
      {
        collection: 'b',
        what: 'digest',
      },
    );
    expect(firstDifference(summary, [...summary, { ...summary[1]!, name: 'c' }])).toMatchObject({
      collection: 'c',
      found: 'present',
    });
  });
});
