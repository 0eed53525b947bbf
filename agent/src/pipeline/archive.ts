// A pass-through reader of the mongodump archive format (mongo-tools common/archive/spec.md):
// magic, header document, collection metadata documents, terminator, then namespace segments
// (header document, BSON documents, terminator) and EOF markers. It counts documents per
// namespace as the bytes stream by, without buffering documents: progress for backups and
// restores, and a structural check of a backup before a restore touches the database.
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { BSON } from 'mongodb';
import type { BackupSummary } from '@coffer/contracts';
import type { RecordNamespace } from '../crypto/record.js';
import { DocumentDigest, indexesFromMetadata } from './digest.js';

const MAGIC = 0x8199e26d;
const TERMINATOR = 0xffffffff;
const MAX_DECODED_DOC = 64 * 1024 * 1024;
const MAX_DOC = 64 * 1024 * 1024;

export class ArchiveFormatError extends Error {
  override readonly name = 'ArchiveFormatError';
}

export interface ArchiveCollection {
  db: string;
  collection: string;
  /** '' for a collection, 'view' or 'timeseries' otherwise. */
  type: string;
}

export interface ArchivePrelude {
  formatVersion: string;
  serverVersion: string;
  toolVersion: string;
  collections: ArchiveCollection[];
}

type Step =
  | { kind: 'magic' }
  | { kind: 'docLength'; then: 'header' | 'prelude' | 'nsHeader' | 'data' | 'eofTerminator' }
  | { kind: 'docBody'; then: 'header' | 'prelude' | 'nsHeader'; length: number }
  | { kind: 'skip'; remaining: number };

export interface ArchiveScannerOptions {
  /**
   * true: a malformed archive is a stream error (restore). false: scanning just stops and
   * `failed` says why, the bytes still flow (backup — progress must never break a backup).
   */
  strict: boolean;
  /**
   * Also hash every document and keep each collection's index definitions, for the summary a
   * verified backup is compared with (digest.ts, `summary()`).
   */
  digest?: boolean;
}

export class ArchiveScanner extends Transform {
  prelude: ArchivePrelude | undefined;
  /** Documents seen per namespace ("db.collection"). */
  readonly counts = new Map<string, number>();
  /** Namespaces whose EOF marker has been seen. */
  readonly finished = new Set<string>();
  /** Namespace of the segment being read (the collection being dumped or restored). */
  current: string | undefined;
  documents = 0;
  bytes = 0;
  failed: string | undefined;

  private step: Step = { kind: 'magic' };
  private acc: Buffer[] = [];
  private accLength = 0;
  private lengthPrefix = Buffer.alloc(0);
  private pendingHeader: Omit<ArchivePrelude, 'collections'> | undefined;
  private readonly preludeCollections: ArchiveCollection[] = [];
  private readonly strict: boolean;
  private readonly digests: Map<string, DocumentDigest> | undefined;
  private readonly indexes = new Map<string, string[]>();
  private hashing: Hash | undefined;

  constructor(opts: ArchiveScannerOptions) {
    super();
    this.strict = opts.strict;
    this.digests = opts.digest ? new Map() : undefined;
  }

  /**
   * Per collection of the prelude (views hold no documents and are left out): documents, index
   * definitions and digest. Undefined unless the scanner was made with `digest` and read a whole
   * archive.
   */
  summary(): BackupSummary | undefined {
    if (!this.digests || !this.prelude || this.failed !== undefined) return undefined;
    return this.prelude.collections
      .filter((c) => c.type !== 'view')
      .map((c) => {
        const ns = `${c.db}.${c.collection}`;
        const digest = this.digests!.get(ns) ?? new DocumentDigest();
        return {
          name: c.collection,
          documents: digest.count,
          digest: digest.hex(),
          indexes: this.indexes.get(ns) ?? [],
        };
      });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.failed === undefined) {
      try {
        this.scan(chunk);
      } catch (e) {
        this.failed = (e as Error).message;
        if (this.strict) return cb(e instanceof ArchiveFormatError ? e : new ArchiveFormatError(this.failed));
      }
    }
    cb(null, chunk);
  }

  override _flush(cb: TransformCallback): void {
    if (this.failed === undefined) {
      const atBoundary =
        this.step.kind === 'docLength' && this.step.then === 'nsHeader' && this.accLength === 0;
      if (!atBoundary)
        this.failed = this.prelude
          ? 'the archive ends in the middle of a collection'
          : 'the archive is incomplete (no collection list)';
      else {
        const open = this.prelude?.collections.find(
          (c) => c.type === '' && !this.finished.has(`${c.db}.${c.collection}`),
        );
        if (open)
          this.failed = `the archive ends before collection ${open.db}.${open.collection} is complete`;
      }
      if (this.failed !== undefined && this.strict) return cb(new ArchiveFormatError(this.failed));
    }
    cb();
  }

  /** The database the archive was dumped from (undefined when it holds no collection). */
  get sourceDatabases(): string[] {
    return [...new Set((this.prelude?.collections ?? []).map((c) => c.db))];
  }

  private scan(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      const step = this.step;
      if (step.kind === 'skip') {
        const n = Math.min(step.remaining, chunk.length - pos);
        this.hashing?.update(chunk.subarray(pos, pos + n));
        step.remaining -= n;
        pos += n;
        if (step.remaining === 0) {
          this.step = { kind: 'docLength', then: 'data' };
          if (this.hashing) this.digestOf(this.current!).addHash(this.hashing.digest());
          this.hashing = undefined;
        }
        continue;
      }
      const want = step.kind === 'docBody' ? step.length - 4 : 4;
      const n = Math.min(want - this.accLength, chunk.length - pos);
      this.acc.push(chunk.subarray(pos, pos + n));
      this.accLength += n;
      pos += n;
      if (this.accLength < want) continue;
      const bytes = this.acc.length === 1 ? this.acc[0]! : Buffer.concat(this.acc, this.accLength);
      this.acc = [];
      this.accLength = 0;
      this.advance(step, bytes);
    }
  }

  private advance(step: Exclude<Step, { kind: 'skip' }>, bytes: Buffer): void {
    if (step.kind === 'magic') {
      if (bytes.readUInt32LE(0) !== MAGIC)
        throw new ArchiveFormatError('this is not a mongodump archive (bad magic number)');
      this.step = { kind: 'docLength', then: 'header' };
      return;
    }
    if (step.kind === 'docLength') {
      const raw = bytes.readUInt32LE(0);
      if (raw === TERMINATOR) {
        if (step.then === 'prelude') this.finishPrelude();
        if (step.then === 'prelude' || step.then === 'data' || step.then === 'eofTerminator')
          this.step = { kind: 'docLength', then: 'nsHeader' };
        else
          throw new ArchiveFormatError(
            `unexpected terminator where a ${step.then === 'header' ? 'header' : 'namespace header'} was expected`,
          );
        return;
      }
      if (step.then === 'eofTerminator')
        throw new ArchiveFormatError('a collection end marker is not followed by a terminator');
      if (raw < 5 || raw > (step.then === 'data' ? MAX_DOC : MAX_DECODED_DOC)) {
        throw new ArchiveFormatError(`a BSON document has an impossible length (${raw})`);
      }
      if (step.then === 'data') {
        const ns = this.current!;
        this.counts.set(ns, (this.counts.get(ns) ?? 0) + 1);
        this.documents++;
        if (this.digests) this.hashing = createHash('sha256').update(bytes);
        this.step = { kind: 'skip', remaining: raw - 4 };
      } else {
        this.lengthPrefix = Buffer.from(bytes);
        this.step = { kind: 'docBody', then: step.then, length: raw };
      }
      return;
    }
    // docBody: decode the small structural documents.
    const doc = this.decode(Buffer.concat([this.lengthPrefix, bytes]));
    if (step.then === 'header') {
      this.pendingHeader = {
        formatVersion: String(doc.version ?? ''),
        serverVersion: String(doc.server_version ?? ''),
        toolVersion: String(doc.tool_version ?? ''),
      };
      this.step = { kind: 'docLength', then: 'prelude' };
    } else if (step.then === 'prelude') {
      this.preludeCollections.push({
        db: String(doc.db ?? ''),
        collection: String(doc.collection ?? ''),
        type: String(doc.type ?? ''),
      });
      if (this.digests && typeof doc.metadata === 'string')
        this.indexes.set(
          `${String(doc.db ?? '')}.${String(doc.collection ?? '')}`,
          indexesFromMetadata(doc.metadata),
        );
      this.step = { kind: 'docLength', then: 'prelude' };
    } else {
      const ns = `${String(doc.db ?? '')}.${String(doc.collection ?? '')}`;
      if (doc.EOF === true) {
        this.finished.add(ns);
        this.step = { kind: 'docLength', then: 'eofTerminator' };
      } else {
        this.current = ns;
        if (!this.counts.has(ns)) this.counts.set(ns, 0);
        this.step = { kind: 'docLength', then: 'data' };
      }
    }
  }

  private digestOf(ns: string): DocumentDigest {
    let d = this.digests!.get(ns);
    if (!d) this.digests!.set(ns, (d = new DocumentDigest()));
    return d;
  }

  private finishPrelude(): void {
    if (!this.pendingHeader) throw new ArchiveFormatError('the archive has no header');
    this.prelude = { ...this.pendingHeader, collections: this.preludeCollections };
    this.emit('prelude', this.prelude);
  }

  private decode(buf: Buffer): Record<string, unknown> {
    try {
      return BSON.deserialize(buf) as Record<string, unknown>;
    } catch (e) {
      throw new ArchiveFormatError(`a structural BSON document is malformed: ${(e as Error).message}`);
    }
  }
}

/**
 * The namespaces of a walked archive as a sealed record lists them: every namespace of the prelude,
 * in its order, with the documents the archive holds for it. A backup writes its sealed record
 * from this function and a restore compares its own walk with it, so both sides count alike.
 */
export function archiveNamespaces(scanner: ArchiveScanner): RecordNamespace[] {
  return (scanner.prelude?.collections ?? []).map((c) => {
    const ns = `${c.db}.${c.collection}`;
    return { ns, documents: scanner.counts.get(ns) ?? 0 };
  });
}
