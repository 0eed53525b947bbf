// The per-collection summary a verification compares (issue 20): document count, index
// definitions and an order-independent digest of the raw BSON documents. The backup computes it
// from the archive as it streams through the agent (ArchiveScanner with `digest`), the
// verification again from the collections restored into a scratch database.
//
// The digest is the sum modulo 2^256 of the SHA-256 of each document's BSON bytes. A sum does not
// depend on the order documents come in (mongodump and a find after mongorestore need not agree
// on it), can be kept with 32 bytes per collection while the documents stream by, and counts
// every document: with XOR, two identical documents (a collection without a unique _id may hold
// them) cancel out, so a restore that lost or doubled such a pair would still match. It guards
// against accidents (a lossy restore, a type changed on the way), not an adversary choosing
// documents to collide: the backup file itself is authenticated (docs/encryption-format.md).
import { createHash } from 'node:crypto';
import { BSON, type Document } from 'mongodb';

const { EJSON } = BSON;
import type { BackupSummary, CollectionSummary, VerificationDifference } from '@coffer/contracts';

const WORDS = 8; // 256 bits as 32-bit words, most significant first (as SHA-256 prints)

/** Sum modulo 2^256 of SHA-256 digests. */
export class DocumentDigest {
  private readonly sum = new Uint32Array(WORDS);
  count = 0;

  /** Adds one document's complete BSON bytes. */
  addDocument(bson: Uint8Array): void {
    this.addHash(createHash('sha256').update(bson).digest());
  }

  /** Adds a finished SHA-256 (a document hashed piece by piece, as the archive streams). */
  addHash(hash: Buffer): void {
    let carry = 0;
    for (let i = WORDS - 1; i >= 0; i--) {
      const total = this.sum[i]! + hash.readUInt32BE(i * 4) + carry;
      this.sum[i] = total >>> 0;
      carry = total > 0xffffffff ? 1 : 0;
    }
    this.count++;
  }

  hex(): string {
    return Array.from(this.sum, (w) => w.toString(16).padStart(8, '0')).join('');
  }
}

/** Options an index has only for MongoDB's bookkeeping, not for what it does. */
const BOOKKEEPING = new Set(['v', 'ns', 'background']);

function plain(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(plain);
  const bsontype = (value as { _bsontype?: string })._bsontype;
  // Int32/Double are numbers already (relaxed EJSON, promoted driver values); Long and Decimal128
  // are written as numbers where they fit, so 1 and NumberLong(1) in an index key compare alike.
  if (bsontype === 'Long' || bsontype === 'Decimal128' || bsontype === 'Int32' || bsontype === 'Double')
    return Number(String(value));
  if (bsontype) return EJSON.serialize(value, { relaxed: true });
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, plain(v)]),
  );
}

/**
 * One index definition as canonical JSON: bookkeeping options left out, options in name order,
 * numbers as numbers; the key pattern keeps its order (it is part of what the index is).
 */
export function canonicalIndex(def: Document): string {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(def).sort()) {
    if (BOOKKEEPING.has(k)) continue;
    out[k] =
      k === 'key'
        ? Object.fromEntries(
            Object.entries(def.key as Record<string, unknown>).map(([f, v]) => [f, plain(v)]),
          )
        : plain(def[k]);
  }
  return JSON.stringify(out);
}

/** Index definitions as a summary lists them: canonical, sorted. */
export function canonicalIndexes(defs: readonly Document[]): string[] {
  return defs.map(canonicalIndex).sort();
}

/**
 * The index definitions a mongodump archive records for a collection: its prelude's `metadata`,
 * the collection's metadata JSON (Extended JSON) with an `indexes` list. Unreadable metadata
 * gives none, and the verification then says the indexes differ.
 */
export function indexesFromMetadata(metadata: string): string[] {
  try {
    const parsed = EJSON.parse(metadata, { relaxed: true }) as { indexes?: Document[] };
    return canonicalIndexes(Array.isArray(parsed.indexes) ? parsed.indexes : []);
  } catch {
    return [];
  }
}

/** Index definitions as counted in a verification's result: all collections together. */
export const indexCount = (summary: BackupSummary) => summary.reduce((n, c) => n + c.indexes.length, 0);

/**
 * The first difference between what was dumped and what was restored, in collection order, or
 * undefined when they agree: missing collections first, then per collection the count, the
 * indexes and the digest (the cheapest explanation first).
 */
export function firstDifference(
  expected: BackupSummary,
  found: BackupSummary,
): VerificationDifference | undefined {
  const byName = new Map(found.map((c) => [c.name, c]));
  for (const want of expected) {
    const got = byName.get(want.name);
    if (!got) return { collection: want.name, what: 'collection', expected: 'present', found: 'missing' };
    const diff = collectionDifference(want, got);
    if (diff) return diff;
  }
  const known = new Set(expected.map((c) => c.name));
  const extra = found.find((c) => !known.has(c.name));
  if (extra) return { collection: extra.name, what: 'collection', expected: 'absent', found: 'present' };
  return undefined;
}

function collectionDifference(want: CollectionSummary, got: CollectionSummary) {
  const collection = want.name;
  if (want.documents !== got.documents)
    return {
      collection,
      what: 'documents',
      expected: String(want.documents),
      found: String(got.documents),
    } as const;
  const missing = want.indexes.find((i) => !got.indexes.includes(i));
  const extra = got.indexes.find((i) => !want.indexes.includes(i));
  if (missing !== undefined || extra !== undefined)
    return {
      collection,
      what: 'indexes',
      expected: missing ?? 'none more',
      found: extra ?? 'none',
    } as const;
  if (want.digest !== got.digest)
    return { collection, what: 'digest', expected: want.digest, found: got.digest } as const;
  return undefined;
}
