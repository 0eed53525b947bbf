// zstd on every core: the stream is cut into independent frames of `frameSize` bytes, each
// compressed by an async one-shot `zlib.zstdCompress` call (libuv's thread pool), and the
// frames are emitted in input order. Concatenated zstd frames are one valid zstd stream, so every
// reader (the agent's decryptor, docs/decrypt_coffer.py, the zstd CLI) reads the output as before.
//
// Memory is bounded by counting frames, not bytes in buffers: at most `maxInFlight` frames are
// handed to the pool or waiting their turn, plus the one being filled and one in the readable
// buffer. A slow consumer stops the pushing of finished frames, which stops dispatching, which
// holds back the writer's callback: backpressure reaches the producer.
import { availableParallelism } from 'node:os';
import { Transform, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';

/** A few MiB per frame: large enough that zstd's ratio does not suffer, small enough to spread. */
export const DEFAULT_FRAME_SIZE = 4 * 1024 * 1024;

/**
 * Frames compressing at once by default. libuv's pool has 4 threads unless UV_THREADPOOL_SIZE says
 * otherwise; more jobs than threads would only queue there and hold memory.
 */
export function defaultMaxInFlight(): number {
  return Math.max(2, Math.min(4, availableParallelism() + 1));
}

export interface ParallelZstdOptions {
  level: number;
  /** Uncompressed bytes per zstd frame (default 4 MiB). */
  frameSize?: number;
  /** Frames dispatched and not yet emitted, at most (default: cores + 1, between 2 and 4). */
  maxInFlight?: number;
}

interface Job {
  done: boolean;
  result?: Buffer;
  error?: Error;
}

export class ParallelZstdCompress extends Transform {
  readonly frameSize: number;
  readonly maxInFlight: number;
  /** Counters for callers and tests: frames handed to the pool, frames emitted, the most held at once. */
  framesStarted = 0;
  framesEmitted = 0;
  peakInFlight = 0;
  bytesIn = 0;
  bytesOut = 0;

  private readonly params: Record<number, number>;
  private parts: Buffer[] = [];
  private partsLength = 0;
  private readonly queue: Job[] = [];
  private wake: (() => void) | undefined;
  private failure: Error | undefined;

  constructor(opts: ParallelZstdOptions) {
    super();
    this.frameSize = opts.frameSize ?? DEFAULT_FRAME_SIZE;
    this.maxInFlight = opts.maxInFlight ?? defaultMaxInFlight();
    if (!Number.isInteger(this.frameSize) || this.frameSize < 1) throw new RangeError('invalid frame size');
    if (!Number.isInteger(this.maxInFlight) || this.maxInFlight < 1)
      throw new RangeError('invalid number of frames in flight');
    this.params = {
      [zlib.constants.ZSTD_c_compressionLevel]: opts.level,
      // zstd's content checksum in every frame: a reader checks each frame's content on its own.
      [zlib.constants.ZSTD_c_checksumFlag]: 1,
    };
  }

  /** Frames handed to the pool and not yet emitted. */
  get inFlight(): number {
    return this.queue.length;
  }

  /** Frames the pool is still compressing. */
  get compressing(): number {
    return this.queue.filter((j) => !j.done).length;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytesIn += chunk.length;
    this.take(chunk).then(() => cb(), cb);
  }

  override _flush(cb: TransformCallback): void {
    // An empty input still gives one (empty) frame: a zstd payload is never zero bytes.
    if (this.partsLength > 0 || this.framesStarted === 0) this.dispatch();
    this.waitUntil(() => this.queue.length === 0).then(() => cb(), cb);
  }

  override _read(size: number): void {
    super._read(size);
    this.emitReady();
  }

  override _destroy(err: Error | null, cb: (error: Error | null) => void): void {
    this.failure ??= err ?? new Error('stream destroyed');
    this.parts = [];
    this.notify();
    cb(err);
  }

  private async take(chunk: Buffer): Promise<void> {
    let pos = 0;
    while (pos < chunk.length) {
      const n = Math.min(this.frameSize - this.partsLength, chunk.length - pos);
      this.parts.push(n === chunk.length ? chunk : chunk.subarray(pos, pos + n));
      this.partsLength += n;
      pos += n;
      if (this.partsLength === this.frameSize) {
        // Wait for a slot first, so a write larger than many frames never floods the pool.
        await this.waitUntil(() => this.queue.length < this.maxInFlight);
        this.dispatch();
      }
    }
  }

  private dispatch(): void {
    const frame =
      this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.partsLength);
    this.parts = [];
    this.partsLength = 0;
    const job: Job = { done: false };
    this.queue.push(job);
    this.framesStarted++;
    this.peakInFlight = Math.max(this.peakInFlight, this.queue.length);
    zlib.zstdCompress(
      frame,
      // One output buffer of the frame's size: the pool thread seldom has to call back for more room.
      { params: this.params, chunkSize: Math.max(64 * 1024, frame.length + 1024) },
      (error, result) => {
        job.done = true;
        if (error) job.error = error;
        else job.result = result;
        this.emitReady();
      },
    );
  }

  /** Emits finished frames in order while the readable side has room. */
  private emitReady(): void {
    while (this.queue.length && this.queue[0]!.done && !this.destroyed) {
      const job = this.queue[0]!;
      if (job.error) {
        this.destroy(job.error);
        return;
      }
      // Below the high-water mark only: a stalled consumer stops here, so frames stay counted.
      if (this.readableLength >= this.readableHighWaterMark) break;
      this.queue.shift();
      this.framesEmitted++;
      this.bytesOut += job.result!.length;
      this.push(job.result);
    }
    this.notify();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private async waitUntil(ready: () => boolean): Promise<void> {
    for (;;) {
      if (this.failure) throw this.failure;
      if (ready()) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}
