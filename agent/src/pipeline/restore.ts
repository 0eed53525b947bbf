// Restore: verify the whole encrypted file first (every chunk, the end, and the archive inside),
// then stream decrypt → decompress into `mongorestore --archive --drop`. Everything that can be
// checked before mongorestore starts is: a wrong key, a damaged file, a missing tool or an
// unreachable server leave the target database as it was.
import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createDecryptor } from '../crypto/decrypt.js';
import { CofferFormatError } from '../crypto/errors.js';
import { checkFingerprint, Compression, HEADER_LENGTH, parseHeader } from '../crypto/format.js';
import { createZstdDecompressor } from '../crypto/parallel-zstd.js';
import { verifyFile } from '../crypto/verify.js';
import { discard } from '../util/streams.js';
import { ArchiveFormatError, ArchiveScanner } from './archive.js';
import { discardRestore } from './bench.js';
import { describeExit, startTool } from './child.js';
import { PipelineError } from './errors.js';
import { listCollections, withClient } from './mongo.js';
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
}

interface Scan {
  fingerprint: string;
  compression: Compression;
  sourceDb: string | undefined;
  collections: Array<{ name: string; documents: number }>;
  documents: number;
}

async function readHeader(handle: FileHandle, masterKey: Buffer) {
  const buf = Buffer.alloc(HEADER_LENGTH);
  const { bytesRead } = await handle.read(buf, 0, HEADER_LENGTH, 0);
  const header = parseHeader(buf.subarray(0, bytesRead));
  checkFingerprint(header, masterKey);
  return header;
}

/** Pass 1: authenticate every chunk and walk the archive inside; nothing is written anywhere. */
async function verifyAndScan(file: string, handle: FileHandle, masterKey: Buffer): Promise<Scan> {
  const header = await readHeader(handle, masterKey);
  const scanner = new ArchiveScanner({ strict: true });
  const unzstd = header.compression === Compression.Zstd ? createZstdDecompressor() : undefined;
  const [verified, inner] = await Promise.allSettled([
    verifyFile(file, masterKey, { handle, payload: unzstd ?? scanner }),
    unzstd ? pipeline(unzstd, scanner, discard()) : pipeline(scanner, discard()),
  ]);
  if (verified.status === 'rejected' || inner.status === 'rejected') {
    // A damaged file explains everything downstream; otherwise the archive check's reason.
    const errors = [verified, inner].flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
    const format = errors.find((e) => e instanceof CofferFormatError);
    if (format) throw format;
    const archive = errors.find((e) => e instanceof ArchiveFormatError);
    if (archive)
      throw new PipelineError(
        'BAD_ARCHIVE',
        `The backup decrypts correctly but is not a complete mongodump archive: ${archive.message}.`,
      );
    if (inner.status === 'fulfilled') throw errors[0]!; // e.g. a read error
    throw new PipelineError(
      'BAD_ARCHIVE',
      `The backup decrypts correctly but cannot be decompressed: ${(inner.reason as Error).message}.`,
    );
  }
  const dbs = scanner.sourceDatabases;
  if (dbs.length > 1)
    throw new PipelineError(
      'BAD_ARCHIVE',
      `The backup holds several databases (${dbs.join(', ')}); a Coffer backup holds one.`,
    );
  const collections = (scanner.prelude?.collections ?? [])
    .filter((c) => c.type !== 'view')
    .map((c) => ({ name: c.collection, documents: scanner.counts.get(`${c.db}.${c.collection}`) ?? 0 }));
  return {
    fingerprint: verified.value.fingerprint,
    compression: header.compression,
    sourceDb: dbs[0],
    collections,
    documents: scanner.documents,
  };
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

/** Verifies `file`, then replaces the collections of `dbName` with the backup's. */
export async function runRestore(opts: RestoreOptions): Promise<RestoreResult> {
  const started = Date.now();
  const label = opts.label ?? opts.dbName;
  const scrub = redactorFor(opts.uri);
  mongorestoreArgs({ configFile: '', fromDb: opts.dbName, toDb: opts.dbName }); // validates the name
  const benchSink = discardRestore();
  const tool = benchSink ? '' : await findTool('mongorestore');

  const handle = await open(opts.file, 'r');
  try {
    const scan = await verifyAndScan(opts.file, handle, opts.masterKey);
    refuseForeign(scan, opts.sourceDb ?? opts.dbName, label);
    opts.signal?.throwIfAborted();
    const before = benchSink ? [] : await withClient(opts.uri, label, (c) => listCollections(c, opts.dbName));
    opts.signal?.throwIfAborted();
    const inBackup = new Set(scan.collections.map((c) => c.name));
    const extra = before.map((c) => c.name).filter((n) => !inBackup.has(n));

    let restored = 0;
    let failed = 0;
    if (scan.sourceDb !== undefined) {
      ({ restored, failed } = benchSink
        ? await discardArchive(opts, handle)
        : await restoreArchive(opts, handle, tool, scan, scrub, label));
    }
    const dropped: string[] = [];
    if ((opts.dropExtraCollections ?? true) && extra.length) {
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
    };
  } finally {
    await handle.close();
  }
}

/** Pass 2 for the benchmark: decrypt → decompress into a sink standing for mongorestore. */
async function discardArchive(
  opts: RestoreOptions,
  handle: FileHandle,
): Promise<{ restored: number; failed: number }> {
  const scanner = new ArchiveScanner({ strict: true });
  const source = createReadStream('', { fd: handle, start: 0, autoClose: false, highWaterMark: 256 * 1024 });
  await pipeline(source, createDecryptor(opts.masterKey).stream, scanner, discard(), { signal: opts.signal });
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
  const tracker = new ProgressTracker(opts.onProgress, () => {
    for (const [ns, n] of scanner.counts) tracker.observe(splitNamespace(ns).collection, n);
  });
  for (const c of scan.collections) tracker.expect(c.name, c.documents, true);
  return withToolConfig(opts.uri, async (configFile) => {
    const args = mongorestoreArgs({ configFile, fromDb: scan.sourceDb!, toDb: opts.dbName });
    const run = startTool('mongorestore', tool, args, { stdin: true, stdout: false });
    let summary: { restored: number; failed: number } | undefined;
    const stderr = new LineTail(run.stderr, (line) => {
      summary = parseRestoreSummary(line) ?? summary;
      const done = parseRestoreDone(line);
      if (done) tracker.finish(splitNamespace(done.ns).collection, done.documents + done.failures);
    });
    const { stream: decryptor } = createDecryptor(opts.masterKey);
    const source = createReadStream('', {
      fd: handle,
      start: 0,
      autoClose: false,
      highWaterMark: 256 * 1024,
    });
    tracker.start();
    let streamError: unknown;
    try {
      await pipeline(source, decryptor, scanner, run.stdin!, { signal: opts.signal });
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
      if (streamError instanceof CofferFormatError) throw streamError; // the file changed after verification
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
