// Test helper: builds mongodump archives by the spec (mongo-tools common/archive/spec.md), for
// cases a real dump cannot produce (duplicate keys, malformed streams).
import { BSON, type Document } from 'mongodb';

const TERM = Buffer.from([0xff, 0xff, 0xff, 0xff]);
const MAGIC = Buffer.from([0x6d, 0xe2, 0x99, 0x81]);
const ECMA = 0xc96c5795d7870f42n; // CRC-64-ECMA, reflected, as Go's hash/crc64
const MASK = (1n << 64n) - 1n;
const TABLE = Array.from({ length: 256 }, (_, i) => {
  let c = BigInt(i);
  for (let k = 0; k < 8; k++) c = c & 1n ? (c >> 1n) ^ ECMA : c >> 1n;
  return c;
});

function crc64(parts: Buffer[]): bigint {
  let crc = MASK;
  for (const p of parts) for (const b of p) crc = TABLE[Number((crc ^ BigInt(b)) & 0xffn)]! ^ (crc >> 8n);
  return BigInt.asIntN(64, crc ^ MASK);
}

const bson = (d: Document) => Buffer.from(BSON.serialize(d));

export interface ArchiveCollectionSpec {
  name: string;
  documents: Document[];
  indexes?: Document[];
}

/** An archive of `db` with one segment per collection and correct EOF checksums. */
export function buildArchive(db: string, collections: ArchiveCollectionSpec[]): Buffer {
  const parts: Buffer[] = [
    MAGIC,
    bson({ concurrent_collections: 1, version: '0.1', server_version: '7.0.0', tool_version: 'coffer-test' }),
  ];
  for (const c of collections) {
    const metadata = JSON.stringify({
      options: {},
      indexes: c.indexes ?? [{ v: 2, key: { _id: 1 }, name: '_id_' }],
    });
    parts.push(bson({ db, collection: c.name, metadata, size: 0, type: '' }));
  }
  parts.push(TERM);
  for (const c of collections) {
    const docs = c.documents.map(bson);
    if (docs.length) parts.push(bson({ db, collection: c.name, EOF: false, CRC: 0n }), ...docs, TERM);
    parts.push(bson({ db, collection: c.name, EOF: true, CRC: crc64(docs) }), TERM);
  }
  return Buffer.concat(parts);
}
