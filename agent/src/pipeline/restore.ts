// Restore: verify the whole encrypted file first, then stream decrypt → decompress into
// `mongorestore --archive --drop`. Everything that can be checked before mongorestore starts is: a
// wrong key, a damaged file, a missing tool or an unreachable server leave the target database as
// it was. The verification runs over a byte stream (createRestoreVerifier): the agent runs it while
// the file downloads and hands the result in, so the file is read once more, into mongorestore;
// without it runRestore reads the file twice (verify, then restore).
//
// What the verification covers depends on the format (docs/encryption-format.md §6, "One pass"):
// - version 2: every chunk, the end and the sealed record authenticate; nothing is decompressed.
//   The record says what the archive is (database, collections, document counts); the one
//   decrypt-and-decompress pass into mongorestore checks the archive against it as it streams.
// - version 1 (no record): the archive is also decompressed and walked, so it is known to be
//   whole and of this database before --drop; then it is decrypted again into mongorestore.
import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { createDecryptor, DecryptTransform, payloadError } from '../crypto/decrypt.js';
import { CofferFormatError } from '../crypto/errors.js';
import { Compression, FORMAT_V2, type Binding } from '../crypto/format.js';
import { createZstdDecompressor } from '../crypto/parallel-zstd.js';
import { recordDocuments, type RecordNamespace, type SealedRecord } from '../crypto/record.js';
import { discard, drained } from '../util/streams.js';
import { ArchiveFormatError, archiveNamespaces, ArchiveScanner } from './archive.js';
import { describeExit, startTool } from './child.js';
import { PipelineError } from './errors.js';
import { collectionCounts, listCollections, withClient } from './mongo.js';
import {
  checkBinding,
  checkEmptyOverData,
  type RestorePolicy,
  type RestoreRequest,
} from './restore-policy.js';
import { ProgressTracker, splitNamespace, type ProgressListener } from './progress.js';
import { redactorFor } from './redact.js';
import { LineTail, parseRestoreDone, parseRestoreSummary } from './tool-output.js';
import { findTool, mongorestoreArgs, withToolConfig } from './tools.js';

export interface RestoreOptions {
  /** Connection string of the target server (secret). */
  uri: string;
  /** Target database: its collections are dropped and replaced by the backup's. */
  dbName: string;
  /** The encrypted backup file (downloaded to a private temporary file by the caller). */
  file: string;
  masterKey: Buffer;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
  /** Name used in messages (the database label); defaults to dbName. */
  label?: string;
  /**
   * The database the backup must have been dumped from; defaults to dbName. A backup of any other
   * database is refused before anything is dropped: the server chooses which file an agent
   * downloads, and a compromised one must not be able to replace this database with another's
   * data (docs/encryption-format.md, "Which database a backup belongs to"). Set it only to restore
   * a copy under another name on purpose.
   */
  sourceDb?: string;
  /**
   * After a successful mongorestore, drop target collections the backup does not have, so the
   * database equals the snapshot (default true; the dashboard warns that all collections are
   * replaced).
   */
  dropExtraCollections?: boolean;
  /**
   * The result of `createRestoreVerifier` over exactly this file's bytes (the agent verifies while
   * it downloads). Given, the file is not verified again: it is read once, into mongorestore.
   */
  verified?: VerifiedBackup;
  /**
   * The agent's policy and what the command asked for (the daemon always gives them): the file
   * must be the commanded backup of this label, and an empty backup over data needs the user's
   * confirmation (restore-policy.ts). Without it (the CLI, tests) no such check is made.
   */
  guard?: { policy: RestorePolicy; request: RestoreRequest };
  /**
   * Restore only these collections of the backup (mongorestore --nsInclude); the target's other
   * collections are left as they are (no extra collection is dropped unless asked). Absent: all.
   */
  collections?: readonly string[];
  /**
   * The archive goes to a discarding sink instead of mongorestore: verified, decrypted, decompressed
   * and checked against the record as usual, and no database is contacted. Only the benchmark
   * (bench/README.md, "Coffer's ceiling") and the tests of the file handling pass it.
   */
  discardArchive?: boolean;
}

export interface RestoreResult {
  /** Documents restored and documents that failed to restore (mongorestore's summary). */
  restored: number;
  failed: number;
  /** True when mongorestore succeeded and no document failed. */
  clean: boolean;
  /** Database the backup was dumped from. */
  sourceDb: string | undefined;
  /** Collections in the backup with their document counts. */
  collections: Array<{ name: string; documents: number }>;
  /** Target collections dropped because the backup does not have them. */
  dropped: string[];
  fingerprint: string;
  durationMs: number;
  /**
   * Where `durationMs` went, for the logs (a small job's time, issue 26): the checks before anything
   * changes (the verification when not handed in, the policy, listing the target), the archive's
   * pass into mongorestore, and dropping the collections the backup does not have.
   */
  phases?: { checkMs: number; archiveMs: number; dropMs: number };
}

/** What the verification learned about a backup file; `createRestoreVerifier` produces it. */
export interface VerifiedBackup {
  fingerprint: string;
  compression: Compression;
  sourceDb: string | undefined;
  collections: Array<{ name: string; documents: number }>;
  documents: number;
  /** Bytes of the encrypted file that were verified (restore checks the file still has them). */
  fileBytes: number;
  /** Format version 2: the label and backup id the file is bound to, and its sealed record. */
  binding?: Binding;
  record?: SealedRecord;
}
type Scan = VerifiedBackup;

export interface RestoreVerifier {
  /** Write the encrypted file's bytes here, in order, and end it. Fails with the reason at once. */
  sink: Writable;
  /** Settles once the sink has ended and everything in it was checked; rejects with the reason. */
  result: Promise<VerifiedBackup>;
}

/**
 * Authenticated payload in → (zstd) → strict archive walk, for a version 1 file; a version 2
 * file's payload is only authenticated (its sealed record stands for the walk). Which chain comes
 * first is only known from the header, i.e. once bytes have arrived, so the chain is built at the
 * first piece. Its failures come out already worded for the user (the texts of a restore's
 * verification).
 */
class ArchiveCheck extends Writable {
  private head: Writable | undefined;
  private inner: Promise<void> | undefined;
  /** The archive was decompressed and walked (version 1). */
  walked = false;

  constructor(
    private readonly decrypt: DecryptTransform,
    readonly scanner: ArchiveScanner,
  ) {
    super({ highWaterMark: 256 * 1024 });
  }

  private start(): { head: Writable; inner: Promise<void> } {
    if (!this.head && this.decrypt.header?.version === FORMAT_V2) {
      // Nothing to check in the plaintext: a sink that drops it. When a later chunk fails, _destroy
      // destroys it with that error, which the verification reports: here it must not be an
      // unhandled 'error' event (that ended the agent).
      this.head = discard().on('error', () => undefined);
      this.inner = Promise.resolve();
    } else if (!this.head) {
      this.walked = true;
      const unzstd =
        this.decrypt.header?.compression === Compression.Zstd ? createZstdDecompressor() : undefined;
      this.head = unzstd ?? this.scanner;
      this.inner = (
        unzstd ? pipeline(unzstd, this.scanner, discard()) : pipeline(this.scanner, discard())
      ).catch((e: unknown) => {
        throw archiveError(e as Error);
      });
      this.inner.catch((e: Error) => this.destroy(e));
    }
    return { head: this.head, inner: this.inner! };
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    const { head, inner } = this.start();
    if (head.write(chunk)) return cb();
    // When the chain fails, report its worded reason, not the raw error of the stream that broke.
    drained(head).then(
      () => cb(),
      (e: Error) => inner.then(() => cb(e), cb),
    );
  }

  override _final(cb: (e?: Error | null) => void): void {
    const { head, inner } = this.start();
    head.end();
    inner.then(() => cb(), cb);
  }

  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    if (this.head && !this.head.destroyed) this.head.destroy(err ?? undefined);
    cb(err);
  }
}

function archiveError(e: Error): Error {
  if (e instanceof CofferFormatError || e instanceof PipelineError) return e;
  if (e instanceof ArchiveFormatError)
    return new PipelineError(
      'BAD_ARCHIVE',
      `The backup decrypts correctly but is not a complete mongodump archive: ${e.message}.`,
    );
  return payloadError(e);
}

/**
 * The verification of a restore over a byte stream: authenticates the header, the key
 * fingerprint, every chunk, their order, the final chunk, the sealed record (version 2) and that
 * nothing follows, and walks the mongodump archive inside (strict), comparing it with the record.
 * Nothing is written anywhere. The agent feeds it the bytes as they are downloaded, so the file
 * needs no separate verification pass; verifyAndScan feeds it a file. `checkBinding` runs as soon
 * as the header has arrived (the agent's policy: a file of another label or backup stops the
 * download there). Its failure destroys `sink` with the same error `result` rejects with.
 */
export function createRestoreVerifier(
  masterKey: Buffer,
  opts: { checkBinding?: (binding: Binding | undefined) => void } = {},
): RestoreVerifier {
  const onBinding = opts.checkBinding;
  const decrypt = new DecryptTransform(masterKey, onBinding && ((header) => onBinding(header.binding)));
  const scanner = new ArchiveScanner({ strict: true });
  const check = new ArchiveCheck(decrypt, scanner);
  const result = pipeline(decrypt, check).then((): VerifiedBackup => {
    const opened = decrypt.result!;
    const contents = check.walked ? walkedContents(scanner) : recordContents(opened.record!);
    return {
      fingerprint: opened.header.fingerprint.toString('hex'),
      compression: opened.header.compression,
      ...contents,
      fileBytes: opened.fileBytes,
      ...(opened.header.binding ? { binding: opened.header.binding } : {}),
      ...(opened.record ? { record: opened.record } : {}),
    };
  });
  result.catch(() => undefined); // a caller that stops early (its download failed) need not wait
  return { sink: decrypt, result };
}

type Contents = Pick<VerifiedBackup, 'sourceDb' | 'collections' | 'documents'>;

function oneDatabase(dbs: string[]): string | undefined {
  if (dbs.length > 1)
    throw new PipelineError(
      'BAD_ARCHIVE',
      `The backup holds several databases (${dbs.join(', ')}); a Coffer backup holds one.`,
    );
  return dbs[0];
}

/** What a version 1 file holds, from the walk of its archive (views are not collections). */
function walkedContents(scanner: ArchiveScanner): Contents {
  const collections = (scanner.prelude?.collections ?? [])
    .filter((c) => c.type !== 'view')
    .map((c) => ({ name: c.collection, documents: scanner.counts.get(`${c.db}.${c.collection}`) ?? 0 }));
  return { sourceDb: oneDatabase(scanner.sourceDatabases), collections, documents: scanner.documents };
}

/**
 * What a version 2 file holds, from its authenticated record (which does not tell views apart:
 * they are listed with 0 documents, and so are not dropped as extra collections after the restore).
 */
function recordContents(record: SealedRecord): Contents {
  const names = record.namespaces.map((n) => ({ ...splitNamespace(n.ns), documents: n.documents }));
  return {
    sourceDb: oneDatabase([...new Set(names.map((n) => n.db))]),
    collections: names.map((n) => ({ name: n.collection, documents: n.documents })),
    documents: recordDocuments(record),
  };
}

/**
 * The last stage before mongorestore's stdin in the one pass of a version 2 file: the walk of the
 * archive as it streams must find the record's namespaces and counts, checked before the end of
 * the archive is handed on (createDecryptor checks its length and SHA-256 the same way). Both are
 * sealed under the key by the same writer, so a mismatch is a writer bug, never tampering.
 */
function matchesRecord(record: SealedRecord | undefined, scanner: ArchiveScanner) {
  return async function* (source: AsyncIterable<Buffer>) {
    yield* source;
    if (record) checkNamespaces(record, archiveNamespaces(scanner));
  };
}

function checkNamespaces(record: SealedRecord, walked: RecordNamespace[]): void {
  const same =
    record.namespaces.length === walked.length &&
    record.namespaces.every((n, i) => n.ns === walked[i]!.ns && n.documents === walked[i]!.documents);
  if (!same)
    throw new CofferFormatError(
      'BAD_RECORD',
      "The backup decrypted correctly but its archive's collections or document counts differ from its sealed record.",
    );
}

/** The verification pass over a file already on disk (the CLI's restore and the benchmark). */
async function verifyAndScan(handle: FileHandle, masterKey: Buffer): Promise<Scan> {
  const verifier = createRestoreVerifier(masterKey);
  const source = readFile(handle);
  // A read error destroys the sink, so `result` carries every failure, the verifier's or the read's.
  await pipeline(source, verifier.sink).catch(() => undefined);
  return verifier.result;
}

/** Pass 3 authenticates every chunk again, but only an unchanged length guarantees it reads all. */
async function sameSize(handle: FileHandle, verified: number): Promise<void> {
  const { size } = await handle.stat();
  if (size !== verified)
    throw new PipelineError(
      'BAD_ARCHIVE',
      `The backup file changed after it was verified (${verified} bytes verified, ${size} on disk). ` +
        'Nothing was changed; restore the backup again.',
    );
}

/**
 * The archive names the database every collection was dumped from (its prelude, authenticated with
 * the rest of the file); it must be the one this restore is for. A backup of an empty database
 * names none and cannot be told apart: it passes (see docs/encryption-format.md).
 */
function refuseForeign(scan: Scan, expected: string, label: string): void {
  if (scan.sourceDb === undefined || scan.sourceDb === expected) return;
  throw new PipelineError(
    'WRONG_DATABASE',
    `Refusing to restore "${label}": the backup file is of database "${scan.sourceDb}", not "${expected}". ` +
      'Nothing was changed. The server handed this agent a backup of another database.',
  );
}

/** A chosen collection the backup does not hold is refused before anything is dropped. */
function refuseMissingCollections(scan: Scan, chosen: readonly string[] | undefined, label: string): void {
  const held = new Set(scan.collections.map((c) => c.name));
  const missing = (chosen ?? []).filter((c) => !held.has(c));
  if (missing.length)
    throw new PipelineError(
      'REFUSED',
      `Refusing to restore "${label}": the backup holds no collection ${missing.map((m) => `"${m}"`).join(', ')}. ` +
        'Nothing was changed.',
    );
}

/** Verifies `file` (unless `verified` is given), then replaces the collections of `dbName` with the backup's. */
export async function runRestore(opts: RestoreOptions): Promise<RestoreResult> {
  const started = Date.now();
  const label = opts.label ?? opts.dbName;
  const scrub = redactorFor(opts.uri);
  // Validates the names before anything is read.
  mongorestoreArgs({ configFile: '', fromDb: opts.dbName, toDb: opts.dbName, collections: opts.collections });
  const discarding = opts.discardArchive === true;
  const tool = discarding ? '' : await findTool('mongorestore');

  const handle = await open(opts.file, 'r');
  try {
    const scan = opts.verified ?? (await verifyAndScan(handle, opts.masterKey));
    if (opts.verified) await sameSize(handle, opts.verified.fileBytes);
    if (opts.guard) checkBinding(opts.guard.policy, opts.guard.request, scan.binding);
    refuseForeign(scan, opts.sourceDb ?? opts.dbName, label);
    refuseMissingCollections(scan, opts.collections, label);
    opts.signal?.throwIfAborted();
    const before = discarding
      ? []
      : await withClient(opts.uri, label, (c) => listCollections(c, opts.dbName));
    if (opts.guard && scan.documents === 0 && before.length)
      checkEmptyOverData(opts.guard.request, scan.documents, await targetDocuments(opts, label));
    opts.signal?.throwIfAborted();
    const inBackup = new Set(scan.collections.map((c) => c.name));
    const extra = before.map((c) => c.name).filter((n) => !inBackup.has(n));
    const checked = Date.now();

    let restored = 0;
    let failed = 0;
    if (scan.sourceDb !== undefined) {
      ({ restored, failed } = discarding
        ? await discardArchive(opts, handle, scan)
        : await restoreArchive(opts, handle, tool, scan, scrub, label));
    } else if (scan.record) {
      // Nothing to hand mongorestore, but the archive must still be the empty one the record says
      // before extra collections are dropped (it was never decompressed).
      await discardArchive(opts, handle, scan);
    }
    const passed = Date.now();
    const dropped: string[] = [];
    if ((opts.dropExtraCollections ?? !opts.collections) && extra.length) {
      await withClient(opts.uri, label, async (c) => {
        for (const name of extra) {
          await c.db(opts.dbName).collection(name).drop();
          dropped.push(name);
        }
      });
    }
    return {
      restored,
      failed,
      clean: failed === 0,
      sourceDb: scan.sourceDb,
      collections: scan.collections,
      dropped,
      fingerprint: scan.fingerprint,
      durationMs: Date.now() - started,
      phases: { checkMs: checked - started, archiveMs: passed - checked, dropMs: Date.now() - passed },
    };
  } finally {
    await handle.close();
  }
}

/** Documents the target database holds now (estimated, as backup progress counts them). */
async function targetDocuments(opts: RestoreOptions, label: string): Promise<number> {
  const counts = await withClient(opts.uri, label, (c) => collectionCounts(c, opts.dbName));
  return counts.reduce((n, c) => n + c.count, 0);
}

/** The file's bytes from the start, through the handle both passes share. */
const readFile = (handle: FileHandle) =>
  createReadStream('', { fd: handle, start: 0, autoClose: false, highWaterMark: 256 * 1024 });

/**
 * Pass 2 into a discarding sink (the benchmark's stand-in for mongorestore, and the check of an
 * empty version 2 backup): decrypt → decompress → walk, with the record's checks.
 */
async function discardArchive(
  opts: RestoreOptions,
  handle: FileHandle,
  scan: Scan,
): Promise<{ restored: number; failed: number }> {
  const scanner = new ArchiveScanner({ strict: true });
  await pipeline(
    readFile(handle),
    createDecryptor(opts.masterKey).stream,
    scanner,
    matchesRecord(scan.record, scanner),
    discard(),
    { signal: opts.signal },
  );
  return { restored: scanner.documents, failed: 0 };
}

/** Pass 2: decrypt → decompress → mongorestore, counting documents as they go in. */
async function restoreArchive(
  opts: RestoreOptions,
  handle: FileHandle,
  tool: string,
  scan: Scan,
  scrub: (s: string) => string,
  label: string,
): Promise<{ restored: number; failed: number }> {
  const scanner = new ArchiveScanner({ strict: true });
  // Counts are what has been handed to mongorestore; a collection is done when mongorestore says so.
  // With chosen collections the whole archive still streams through: only those are counted.
  const chosen = opts.collections && new Set(opts.collections);
  const tracker = new ProgressTracker(opts.onProgress, () => {
    for (const [ns, n] of scanner.counts) {
      const name = splitNamespace(ns).collection;
      if (!chosen || chosen.has(name)) tracker.observe(name, n);
    }
  });
  for (const c of scan.collections)
    if (!chosen || chosen.has(c.name)) tracker.expect(c.name, c.documents, true);
  return withToolConfig(opts.uri, async (configFile) => {
    const args = mongorestoreArgs({
      configFile,
      fromDb: scan.sourceDb!,
      toDb: opts.dbName,
      collections: opts.collections,
    });
    const run = startTool('mongorestore', tool, args, { stdin: true, stdout: false });
    let summary: { restored: number; failed: number } | undefined;
    const stderr = new LineTail(run.stderr, (line) => {
      summary = parseRestoreSummary(line) ?? summary;
      const done = parseRestoreDone(line);
      if (done) tracker.finish(splitNamespace(done.ns).collection, done.documents + done.failures);
    });
    const { stream: decryptor } = createDecryptor(opts.masterKey);
    tracker.start();
    let streamError: unknown;
    try {
      await pipeline(readFile(handle), decryptor, scanner, matchesRecord(scan.record, scanner), run.stdin!, {
        signal: opts.signal,
      });
    } catch (e) {
      streamError = e;
      run.kill();
    }
    const exit = await run.exited;
    const output = stderr.lines().map(scrub);
    const counts = summary ?? { restored: 0, failed: 0 };
    if (streamError !== undefined || exit.code !== 0) {
      tracker.stop(false);
      if (opts.signal?.aborted) {
        throw new PipelineError(
          'ABORTED',
          `Restore of "${label}" was cancelled after ${counts.restored} document(s) were restored; the database is incomplete.`,
          output,
        );
      }
      // The file changed after verification, or (version 2) the archive is not what its record says:
      // mongorestore may have written part of it or all of it, so the restore fails and says so.
      if (streamError instanceof CofferFormatError)
        throw new CofferFormatError(
          streamError.code,
          `${streamError.message} The restore of "${label}" stopped after mongorestore had restored ${counts.restored} document(s); the database may be partly restored: restore another backup.`,
          streamError.details,
        );
      const last = output.slice(-5).join(' | ');
      const what =
        exit.code !== 0
          ? describeExit('mongorestore', exit)
          : `streaming into mongorestore failed: ${(streamError as Error).message}`;
      throw new PipelineError(
        'TOOL_FAILED',
        `Restore of "${label}" failed (${what}) after ${counts.restored} document(s) were restored; the database may be partly restored: restore the same backup again${last ? `: ${last}` : ''}`,
        output,
      );
    }
    tracker.stop(true);
    if (!summary)
      throw new PipelineError('TOOL_FAILED', 'mongorestore finished without its summary line', output);
    return summary;
  });
}
