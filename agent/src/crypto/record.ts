// The sealed record of a version 2 file (docs/encryption-format.md §4.4): what the archive inside
// is — its length, its SHA-256 and the namespaces with their document counts — written by the
// agent at backup time and sealed after the final chunk, so a reader knows the archive is whole
// and what it holds once the file has authenticated, without walking it.
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { CofferFormatError } from './errors.js';

export interface RecordNamespace {
  /** "database.collection", as the archive's prelude names it. */
  ns: string;
  documents: number;
}

export interface SealedRecord {
  /** Bytes of the archive (the payload after decompression). */
  archiveBytes: number;
  /** SHA-256 of the archive, 64 lowercase hex characters. */
  archiveSha256: string;
  /** Every namespace of the archive's prelude, in its order, with the documents the archive holds. */
  namespaces: RecordNamespace[];
}

/** The record's plaintext: UTF-8 JSON with exactly these three keys, in this order. */
export function encodeRecord(r: SealedRecord): Buffer {
  return Buffer.from(
    JSON.stringify({
      archiveBytes: r.archiveBytes,
      archiveSha256: r.archiveSha256,
      namespaces: r.namespaces.map((n) => ({ ns: n.ns, documents: n.documents })),
    }),
    'utf8',
  );
}

const badRecord = (why: string) =>
  new CofferFormatError('BAD_RECORD', `The backup's sealed record is unusable: ${why}.`);

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/** Parses an authenticated record's plaintext; a malformed one is a writer bug (BAD_RECORD). */
export function parseRecord(bytes: Buffer): SealedRecord {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw badRecord('it is not UTF-8 JSON');
  }
  const o = json as Record<string, unknown> | null;
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw badRecord('it is not a JSON object');
  if (!isCount(o.archiveBytes)) throw badRecord('archiveBytes is not a byte count');
  if (typeof o.archiveSha256 !== 'string' || !/^[0-9a-f]{64}$/.test(o.archiveSha256))
    throw badRecord('archiveSha256 is not 64 lowercase hex characters');
  if (!Array.isArray(o.namespaces)) throw badRecord('namespaces is not a list');
  const namespaces = o.namespaces.map((n: unknown) => {
    const e = n as Record<string, unknown> | null;
    if (!e || typeof e.ns !== 'string' || !isCount(e.documents))
      throw badRecord('a namespace lacks its name or document count');
    return { ns: e.ns, documents: e.documents };
  });
  return { archiveBytes: o.archiveBytes, archiveSha256: o.archiveSha256, namespaces };
}

/** Documents the record says the archive holds: 0 means a backup of an empty database. */
export function recordDocuments(r: SealedRecord): number {
  return r.namespaces.reduce((n, x) => n + x.documents, 0);
}

export const sha256Hex = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** Counts and hashes the archive bytes that pass through it, unchanged. */
export class ArchiveDigest extends Transform {
  bytes = 0;
  private readonly hash: Hash = createHash('sha256');
  private digest: string | undefined;

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    this.hash.update(chunk);
    cb(null, chunk);
  }

  /** The SHA-256 in hex, once every byte has passed (call after the stream ended). */
  sha256(): string {
    this.digest ??= this.hash.digest('hex');
    return this.digest;
  }
}

/** The archive that came out of the file must be the one its record describes. */
export function checkArchive(record: SealedRecord, bytes: number, sha256: string): void {
  if (bytes !== record.archiveBytes)
    throw new CofferFormatError(
      'BAD_RECORD',
      `The backup decrypted correctly but its archive is ${bytes} bytes where its sealed record says ${record.archiveBytes}.`,
    );
  if (sha256 !== record.archiveSha256)
    throw new CofferFormatError(
      'BAD_RECORD',
      'The backup decrypted correctly but its archive does not match the SHA-256 in its sealed record.',
    );
}
