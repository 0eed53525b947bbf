// Backup: mongodump --archive → zstd → encrypt → sink, one streamed pass with backpressure; no
// plaintext on disk. The sink only ever sees a complete file's end after mongodump exited 0: on
// any failure it is destroyed with the error instead, so an upload can abort cleanly.
import { Transform, type TransformCallback, type Writable } from 'node:stream';
import type { BackupSummary } from '@coffer/contracts';
import { pipeline } from 'node:stream/promises';
import { createEncryptor } from '../crypto/encrypt.js';
import { fingerprintHex } from '../crypto/format.js';
import { archiveNamespaces, ArchiveScanner } from './archive.js';
import { describeExit, startTool, type Exit } from './child.js';
import { PipelineError } from './errors.js';
import { checkDatabase } from './mongo.js';
import { ProgressTracker, splitNamespace, type ProgressListener } from './progress.js';
import { redactorFor } from './redact.js';
import { LineTail, parseDumpDone, parseDumpStart, parseProgressLine } from './tool-output.js';
import { findTool, mongodumpArgs, withToolConfig } from './tools.js';

export interface BackupOptions {
  /** Connection string (secret; goes only into the tool's private config file). */
  uri: string;
  /** Database to dump. */
  dbName: string;
  /** Where the encrypted file goes (an upload, a file). Ended on success, destroyed on failure. */
  sink: Writable;
  masterKey: Buffer;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
  /** Name used in messages (the database label); defaults to dbName. */
  label?: string;
  /** Plaintext bytes per encrypted chunk (default 64 KiB). */
  chunkSize?: number;
  /**
   * The backup's id. Given (the daemon always does), the file is format version 2: bound to the
   * label and this id, and ending with the sealed record of the archive.
   */
  backupId?: string;
  /**
   * Called with the dump's summary (digest.ts) once mongodump has exited and before the file's end
   * is written, so the summary reaches the service before the backup completes (a verification
   * is decided at completion). Its failure does not fail the backup: that backup just cannot be
   * verified.
   */
  onSummary?: (summary: BackupSummary) => Promise<void>;
  /**
   * Absolute path of a recorded `mongodump --archive` output to stream instead of running
   * mongodump, with no collection checked up front. Only the benchmark passes it (bench/README.md,
   * "Coffer's ceiling"), to measure the agent → gateway → storage path without a database; nothing
   * the agent reads (config, environment, command) can set it.
   */
  replayArchive?: string;
}

export interface BackupResult {
  /** Documents per collection as written to the archive. */
  collections: Array<{ name: string; documents: number }>;
  documents: number;
  /** Size of the raw mongodump archive. */
  archiveBytes: number;
  /** Size of the encrypted file written to the sink. */
  fileBytes: number;
  /** Fingerprint of the key the file was encrypted with (the service may store it). */
  fingerprint: string;
  durationMs: number;
  /** What a verification compares a restore with; undefined when the archive could not be walked. */
  summary: BackupSummary | undefined;
  /**
   * Where `durationMs` went, for the logs (a small job's time, issue 26): until mongodump started
   * (finding it, its config file), mongodump from start to exit (the archive streams through zstd,
   * encryption and the sink meanwhile), the summary's report, and the end of the file until the
   * sink had finished with it (for an upload: the server's answer); these four add up. Beside
   * them, from the start: the database check, which runs while mongodump does.
   */
  phases?: { setupMs: number; checkMs: number; dumpMs: number; summaryMs: number; finishMs: number };
}

/** Holds back the end of the stream until the tool has exited, and fails it if the exit was bad. */
class ExitGate extends Transform {
  constructor(private readonly check: () => Promise<void>) {
    super();
  }
  override _transform(chunk: Buffer, _e: BufferEncoding, cb: TransformCallback): void {
    cb(null, chunk);
  }
  override _flush(cb: TransformCallback): void {
    this.check().then(
      () => cb(),
      (e: Error) => cb(e),
    );
  }
}

function toolFailure(tool: string, exit: Exit, lines: string[]): PipelineError {
  const last = lines.slice(-5).join(' | ');
  return new PipelineError('TOOL_FAILED', `${describeExit(tool, exit)}${last ? `: ${last}` : ''}`, lines);
}

/**
 * Feeds mongodump's stderr to the tracker: a collection starts with its "writing" line, moves with
 * its bars (ahead of the archive, which receives documents in 16 MiB batches) and is exact at
 * "done dumping". Lines of other databases cannot occur (`--db`), but are ignored all the same.
 */
export function followDumpOutput(tracker: ProgressTracker, db: string): (line: string) => void {
  const collectionOf = (ns: string) => (ns.startsWith(`${db}.`) ? ns.slice(db.length + 1) : undefined);
  return (line) => {
    const bar = parseProgressLine(line, db);
    const started = bar ? undefined : parseDumpStart(line);
    const done = bar || started ? undefined : parseDumpDone(line);
    const collection = collectionOf((bar ?? started ?? done)?.ns ?? '');
    if (collection === undefined) return;
    if (bar) tracker.observe(collection, bar.current);
    else if (started) tracker.begin(collection);
    else if (done) tracker.finish(collection, done.documents);
  };
}

/** Dumps `dbName`, compresses and encrypts it into `sink`. See the module comment for guarantees. */
export async function runBackup(opts: BackupOptions): Promise<BackupResult> {
  const started = Date.now();
  const label = opts.label ?? opts.dbName;
  const scrub = redactorFor(opts.uri);
  const fail = (e: unknown): never => {
    if (!opts.sink.destroyed) opts.sink.destroy(e as Error);
    throw e;
  };

  try {
    return await backup(opts, label, scrub, started);
  } catch (e) {
    return fail(e);
  }
}

async function backup(
  opts: BackupOptions,
  label: string,
  scrub: (s: string) => string,
  started: number,
): Promise<BackupResult> {
  mongodumpArgs({ configFile: '', db: opts.dbName }); // validates the name before anything runs
  const replay = opts.replayArchive;
  if (replay !== undefined && !replay.startsWith('/'))
    throw new PipelineError('REFUSED', 'replayArchive must be an absolute path');
  const tool = replay ? '/bin/cat' : await findTool('mongodump');

  const scanner = new ArchiveScanner({ strict: false, digest: true });
  const tracker = new ProgressTracker(opts.onProgress, () => {
    // The archive lags behind the tool: mongodump hands each collection's documents to the
    // archive in 16 MiB batches, so a small collection appears there only when it is complete.
    if (scanner.failed !== undefined) return;
    for (const [ns, n] of scanner.counts) tracker.observe(splitNamespace(ns).collection, n);
    for (const ns of scanner.finished) tracker.finish(splitNamespace(ns).collection);
  });
  // The collection check (is the database reachable, and the counts progress is measured against)
  // runs beside mongodump, not before it: its round trips to the server need not delay the dump.
  // When it fails it stops mongodump, and its reason is the backup's.
  let checkMs = 0;
  let checkFailure: unknown;
  const check = (replay ? Promise.resolve([]) : checkDatabase(opts.uri, opts.dbName, label)).then(
    (collections) => {
      checkMs = Date.now() - started;
      for (const c of collections) {
        // mongodump writes no documents for a view; a time series goes out as its buckets
        // collection, whose size the statistics of the view do not give.
        if (c.type === 'view') tracker.expect(c.name, 0, true);
        else if (c.type === 'timeseries') tracker.expect(`system.buckets.${c.name}`, 0, false);
        else tracker.expect(c.name, c.count, false);
      }
      tracker.start(); // the first report already has the total
    },
  );
  check.catch((e: unknown) => (checkFailure = e));
  let toolStarted = started;
  let exited = started;
  let summarized = started;

  return withToolConfig(opts.uri, async (configFile) => {
    // A replayed archive still comes through a child's stdout pipe, as mongodump's does.
    const args = replay ? [replay] : mongodumpArgs({ configFile, db: opts.dbName });
    const run = startTool('mongodump', tool, args, {
      stdin: false,
      stdout: true,
    });
    toolStarted = Date.now();
    check.catch(() => run.kill());
    const stderr = new LineTail(run.stderr, followDumpOutput(tracker, opts.dbName));
    const toolOutput = () => stderr.lines().map(scrub);
    const gate = new ExitGate(async () => {
      const exit = await run.exited;
      exited = Date.now();
      await check; // a failed check stopped mongodump: its reason comes first
      if (exit.code !== 0) throw toolFailure('mongodump', exit, toolOutput());
      // Every document has passed the scanner: report 100 % now, while the file is still open.
      tracker.stop(true);
      const summary = scanner.summary();
      if (summary && opts.onSummary) await opts.onSummary(summary).catch(() => undefined);
      summarized = Date.now();
    });
    const { stream: encryptor, encrypt } = createEncryptor({
      masterKey: opts.masterKey,
      chunkSize: opts.chunkSize,
      ...(opts.backupId
        ? {
            binding: { label, backupId: opts.backupId },
            namespaces: () => {
              // The record states what a restore's walk will find: an archive the walk cannot read
              // would give a record no restore could match, so such a backup fails here instead.
              if (scanner.failed !== undefined)
                throw new PipelineError(
                  'BAD_ARCHIVE',
                  `mongodump wrote an archive the agent cannot read (${scanner.failed}); the backup was not stored.`,
                );
              return archiveNamespaces(scanner);
            },
          }
        : {}),
    });
    try {
      await pipeline(run.stdout!, scanner, gate, encryptor, opts.sink, { signal: opts.signal });
    } catch (e) {
      tracker.stop(false);
      run.kill();
      const exit = await run.exited.catch((err: unknown) => err);
      if (checkFailure !== undefined) throw checkFailure;
      if (exit instanceof PipelineError) throw exit;
      if (opts.signal?.aborted) throw new PipelineError('ABORTED', `Backup of "${label}" was cancelled.`);
      throw e;
    }
    tracker.stop(true);
    const names = scanner.prelude?.collections.map((c) => `${c.db}.${c.collection}`) ?? [
      ...scanner.counts.keys(),
    ];
    const collections = names.map((ns) => ({
      name: splitNamespace(ns).collection,
      documents: scanner.counts.get(ns) ?? 0,
    }));
    const finished = Date.now();
    return {
      collections,
      documents: scanner.failed === undefined ? scanner.documents : tracker.snapshot().current,
      archiveBytes: scanner.bytes,
      fileBytes: encrypt.bytesOut,
      fingerprint: fingerprintHex(opts.masterKey),
      durationMs: finished - started,
      summary: scanner.summary(),
      phases: {
        setupMs: toolStarted - started,
        checkMs,
        dumpMs: exited - toolStarted,
        summaryMs: summarized - exited,
        finishMs: finished - summarized,
      },
    };
  });
}
