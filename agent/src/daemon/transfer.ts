// The data plane of docs/agent-protocol.md: the encrypted backup goes up as a streamed HTTP PUT,
// a restore's file comes down with a GET. Both carry the API key and the agent id in headers.
import { createWriteStream } from 'node:fs';
import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Transform, Writable, type TransformCallback } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import {
  AGENT_HEADERS,
  backupUploadPath,
  restoreDownloadPath,
  type BackupUploadAnswer,
} from '@coffer/contracts';
import { drained } from '../util/streams.js';

export interface ServerAccess {
  /** Gateway base URL, e.g. https://coffer.example.com */
  server: string;
  apiKey: string;
  agentId: string;
}

/** The server refused a transfer, or the connection broke; `message` is fit for the dashboard. */
export class TransferError extends Error {
  override readonly name = 'TransferError';
  constructor(
    message: string,
    /** HTTP status when the server answered, else undefined. */
    readonly status?: number,
  ) {
    super(message);
  }
}

const MAX_ERROR_BODY = 64 * 1024;

function request(url: URL, options: http.RequestOptions): ClientRequest {
  return (url.protocol === 'https:' ? https : http).request(url, options);
}

function headersFor(access: ServerAccess, extra: Record<string, string> = {}): Record<string, string> {
  return { [AGENT_HEADERS.apiKey]: access.apiKey, [AGENT_HEADERS.agentId]: access.agentId, ...extra };
}

/** Reads a (small) error answer and turns it into the server's own message. */
async function serverMessage(res: IncomingMessage, what: string): Promise<string> {
  let text = '';
  try {
    for await (const chunk of res) {
      text += (chunk as Buffer).toString('utf8');
      if (text.length > MAX_ERROR_BODY) break;
    }
  } catch {
    // the connection closed; use what arrived
  }
  let message: string | undefined;
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string' && body.message.trim()) message = body.message.trim();
  } catch {
    // not JSON
  }
  return `${what}: ${message ?? (res.statusMessage || 'no reason given')} (HTTP ${res.statusCode})`;
}

const ok = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;

/**
 * A Writable for `runBackup` that streams into a chunked HTTP PUT, with backpressure.
 *
 * - Ending it ends the request body, then waits for the answer: a 2xx completes the write, any
 *   other answer fails it with the server's message.
 * - Destroying it (what runBackup does on failure) does NOT touch the request: the caller first
 *   reports the failure to the server, then calls `abort()`, so the server never sees a
 *   cleanly ended body for a failed dump, and hears the reason before the connection drops.
 * - An early refusal (an error answer while the body is still being sent) or a broken connection
 *   fails the stream at once, so the dump stops instead of feeding a dead connection.
 * - The request starts (headers sent) as soon as the sink is created.
 */
export class UploadSink extends Writable {
  // Not `req`: stream.pipeline() aborts a `.req` it finds on a stream it destroys (Node's
  // destroyer duck-types HTTP requests), which would cut the upload before the failure is reported.
  readonly #req: ClientRequest;
  private answer: { status: number; message?: string } | undefined;
  private failure: Error | undefined;
  private readonly answered: Promise<{ status: number; message?: string }>;
  /** Set when the body is complete and the request is being ended. */
  ending = false;
  /** Size of the answer's `size` field (the stored size) after a 2xx. */
  storedSize: number | undefined;

  constructor(
    access: ServerAccess,
    backupId: string,
    keyFingerprint: string,
    private readonly onEnding: () => void = () => undefined,
  ) {
    super({ highWaterMark: 256 * 1024 });
    const url = new URL(backupUploadPath(backupId), access.server);
    this.#req = request(url, {
      method: 'PUT',
      headers: headersFor(access, {
        'Content-Type': 'application/octet-stream',
        [AGENT_HEADERS.keyFingerprint]: keyFingerprint,
      }),
    });
    this.answered = new Promise((resolve, reject) => {
      this.#req.once('response', (res) => {
        if (ok(res.statusCode)) {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (s: string) => (text = (text + s).slice(0, MAX_ERROR_BODY)));
          res.once('end', () => {
            try {
              const size = (JSON.parse(text) as Partial<BackupUploadAnswer>).size;
              if (typeof size === 'number') this.storedSize = size;
            } catch {
              // the size is informative only
            }
            this.answer = { status: res.statusCode! };
            resolve(this.answer);
          });
          res.once('error', reject);
          return;
        }
        void serverMessage(res, 'The server refused the upload').then((message) => {
          this.answer = { status: res.statusCode!, message };
          resolve(this.answer);
          this.fail(new TransferError(message, res.statusCode));
        });
      });
      this.#req.on('error', (e) => {
        const err = new TransferError(`Upload to the server failed: ${e.message}`);
        reject(err);
        this.fail(err);
      });
    });
    this.answered.catch(() => undefined); // observed in _final or through fail()
    // Start the upload now, not at the first byte: mongodump may hold back its output for seconds
    // (it writes the archive in blocks of up to 16 MB), and an open upload is how the server
    // notices at once that an agent died mid-backup (the connection drops).
    this.#req.flushHeaders();
  }

  /** Fails the stream with `err` unless it has already finished. */
  private fail(err: Error): void {
    // A refusal that explains a broken connection wins over the connection error.
    this.failure ??= err;
    if (!this.writableFinished && !this.destroyed) this.destroy(this.failure);
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    if (this.failure) return cb(this.failure);
    if (this.#req.write(chunk)) return cb();
    const done = (e?: Error | null) => {
      this.#req.off('drain', onDrain);
      this.#req.off('close', onClose);
      cb(e);
    };
    const onDrain = () => done();
    const onClose = () => done(this.failure ?? new TransferError('The upload connection closed'));
    this.#req.once('drain', onDrain);
    this.#req.once('close', onClose);
  }

  override _final(cb: (e?: Error | null) => void): void {
    this.ending = true;
    this.onEnding();
    this.#req.end();
    this.answered.then(
      (a) => cb(ok(a.status) ? null : (this.failure ?? new TransferError(a.message ?? 'Upload refused'))),
      (e: Error) => cb(this.failure ?? e),
    );
  }

  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    // Deliberately leaves the request alone: see abort().
    cb(err);
  }

  /** Cuts the upload (the server then discards what it received). Safe to call more than once. */
  abort(): void {
    if (!this.#req.destroyed) this.#req.destroy();
  }

  /** The server's message when it refused the upload. */
  get refusal(): string | undefined {
    return this.answer && !ok(this.answer.status) ? this.answer.message : undefined;
  }
}

/** Counts bytes and reports them (the download's progress). */
class Counter extends Transform {
  bytes = 0;
  constructor(private readonly onBytes: (n: number) => void) {
    super();
  }
  override _transform(chunk: Buffer, _e: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    this.onBytes(this.bytes);
    cb(null, chunk);
  }
}

const cutOff = (bytes: number, total: number | undefined, why: string) =>
  new TransferError(
    `The download of the backup file was cut off after ${bytes}${total !== undefined ? ` of ${total}` : ''} bytes (${why}). ` +
      'Try the restore again; if this keeps happening, the stored file may be damaged.',
  );

/**
 * Writes every chunk to the file and to `also`, in order, taking the next one only when both
 * have taken this one. A failure of `also` fails the tee at once (the download stops).
 */
class Tee extends Writable {
  constructor(
    private readonly file: Writable,
    private readonly also: Writable,
  ) {
    super({ highWaterMark: 256 * 1024 });
    file.on('error', (e) => this.destroy(e));
    also.on('error', (e) => this.destroy(e));
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    const a = this.file.write(chunk);
    const b = this.also.write(chunk);
    if (a && b) return cb();
    Promise.all([a || drained(this.file), b || drained(this.also)]).then(() => cb(), cb);
  }

  override _final(cb: (e?: Error | null) => void): void {
    this.file.end();
    this.also.end();
    Promise.all([finished(this.file), finished(this.also)]).then(() => cb(), cb);
  }

  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    // Closes the file; the partial file itself is the caller's to remove, as without a tee.
    if (!this.file.destroyed) this.file.destroy();
    cb(err);
  }
}

export interface DownloadOptions {
  onProgress?: (bytes: number, total: number | undefined) => void;
  signal?: AbortSignal;
  /**
   * Also receives every downloaded byte, in order and with backpressure, and is ended when the
   * body is complete (the restore's verifier: the file is verified while it downloads). When it
   * fails, the download stops and rejects with its error unchanged; when the download fails, it is
   * destroyed with the download's error.
   */
  also?: Writable;
  /** The URL path to download from; default the restore's (a verification has its own route). */
  path?: string;
}

/**
 * Downloads a restore's encrypted file into `file` (created with mode 0600; it must not exist).
 * Resolves with the byte count once the whole body (per Content-Length) is on disk (and `also`
 * has taken it all).
 */
export async function downloadRestore(
  access: ServerAccess,
  restoreId: string,
  file: string,
  opts: DownloadOptions = {},
): Promise<number> {
  const { also } = opts;
  try {
    return await download(access, restoreId, file, opts);
  } catch (e) {
    // The verifier's own reason (wrong key, damaged file) is the one that matters.
    if (also?.errored) throw also.errored;
    if (also && !also.destroyed) also.destroy(e as Error);
    throw e;
  }
}

async function download(
  access: ServerAccess,
  restoreId: string,
  file: string,
  opts: DownloadOptions,
): Promise<number> {
  const url = new URL(opts.path ?? restoreDownloadPath(restoreId), access.server);
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { method: 'GET', headers: headersFor(access), signal: opts.signal });
    req.once('response', resolve);
    req.on('error', (e) =>
      reject(opts.signal?.aborted ? e : new TransferError(`Download from the server failed: ${e.message}`)),
    );
    req.end();
  });
  if (!ok(res.statusCode)) {
    throw new TransferError(await serverMessage(res, 'The server refused the download'), res.statusCode);
  }
  const length = res.headers['content-length'];
  const total = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
  const counter = new Counter((n) => opts.onProgress?.(n, total));
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  try {
    await pipeline(res, counter, opts.also ? new Tee(out, opts.also) : out, { signal: opts.signal });
  } catch (e) {
    if (opts.also?.errored) throw opts.also.errored;
    if (opts.signal?.aborted) throw e;
    if ((e as NodeJS.ErrnoException).syscall && (e as NodeJS.ErrnoException).path) throw e; // local file
    throw cutOff(counter.bytes, total, (e as Error).message);
  }
  if (total !== undefined && counter.bytes !== total) throw cutOff(counter.bytes, total, 'the body ended');
  return counter.bytes;
}
