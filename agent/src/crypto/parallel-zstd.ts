// zstd on every core: the stream is cut into independent frames of `frameSize` bytes, each
// compressed by one of several `node:zlib` zstd streams (their work runs on libuv's thread pool,
// so several frames compress at once), and the frames are emitted in input order. Concatenated zstd frames are one valid zstd stream, so every
// reader (the agent's decryptor, docs/decrypt_coffer.py, the zstd CLI) reads the output as before.
//
// Memory is bounded by counting frames, not bytes in buffers: at most `maxInFlight` frames are
// handed to the pool or waiting their turn, plus the one being filled and one in the readable
// buffer. A slow consumer stops the pushing of finished frames, which stops dispatching, which
// holds back the writer's callback: backpressure reaches the producer.
import { availableParallelism } from 'node:os';
import { Transform, type Duplex, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';
import { compose } from '../util/streams.js';
import { badPayload } from './errors.js';

/**
 * A few MiB per frame: large enough that zstd's ratio does not suffer (2, 4 and 8 MiB measured
 * within 0.1 % of each other at level 3), small enough to spread and to keep memory low.
 */
export const DEFAULT_FRAME_SIZE = 2 * 1024 * 1024;

/**
 * Frames compressing at once by default. libuv's pool has 4 threads unless UV_THREADPOOL_SIZE says
 * otherwise; more jobs than threads would only queue there and hold memory.
 */
export function defaultMaxInFlight(): number {
  return Math.max(2, Math.min(4, availableParallelism() + 1));
}

export interface ParallelZstdOptions {
  level: number;
  /** Uncompressed bytes per zstd frame (default 2 MiB). */
  frameSize?: number;
  /** Frames dispatched and not yet emitted, at most (default: cores + 1, between 2 and 4). */
  maxInFlight?: number;
}

interface Slot {
  z: zlib.ZstdCompress;
  busy: boolean;
  out: Buffer[];
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
  /** The frame being filled, and frame buffers the pool has finished with (reused: no garbage). */
  private frame: Buffer | undefined;
  private partsLength = 0;
  private readonly spare: Buffer[] = [];
  private readonly queue: Job[] = [];
  /**
   * One zstd stream per frame in flight, reused frame after frame (`flush(ZSTD_e_end)` closes a
   * frame and the next write opens one): a fresh context per frame (one-shot `zstdCompress`)
   * churned the allocator by several MiB a frame, which measured as ~30 MiB more peak RSS.
   */
  private readonly slots: Slot[] = [];
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
    this.accept(chunk).then(() => cb(), cb);
  }

  override _flush(cb: TransformCallback): void {
    const last = async () => {
      // An empty input still gives one (empty) frame: a zstd payload is never zero bytes.
      if (this.partsLength > 0 || this.framesStarted === 0) {
        await this.waitUntil(() => this.queue.length < this.maxInFlight);
        this.dispatch();
      }
      await this.waitUntil(() => this.queue.length === 0);
      this.closeSlots();
    };
    last().then(() => cb(), cb);
  }

  override _read(size: number): void {
    super._read(size);
    // _read asks for data: one frame goes out even if the buffer still counts what is being read.
    this.emitReady(true);
  }

  override _destroy(err: Error | null, cb: (error: Error | null) => void): void {
    this.failure ??= err ?? new Error('stream destroyed');
    this.frame = undefined;
    this.spare.length = 0;
    this.closeSlots();
    this.notify();
    cb(err);
  }

  private async accept(chunk: Buffer): Promise<void> {
    let pos = 0;
    while (pos < chunk.length) {
      const n = Math.min(this.frameSize - this.partsLength, chunk.length - pos);
      this.frame ??= this.spare.pop() ?? Buffer.allocUnsafeSlow(this.frameSize);
      chunk.copy(this.frame, this.partsLength, pos, pos + n);
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
    const buffer = this.frame ?? Buffer.alloc(0);
    const frame = buffer.subarray(0, this.partsLength);
    this.frame = undefined;
    this.partsLength = 0;
    const job: Job = { done: false };
    this.queue.push(job);
    this.framesStarted++;
    this.peakInFlight = Math.max(this.peakInFlight, this.queue.length);
    const slot = this.freeSlot();
    slot.busy = true;
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      slot.z.off('error', finish);
      slot.busy = false;
      if (buffer.length === this.frameSize) this.spare.push(buffer);
      job.done = true;
      if (error) job.error = error;
      else job.result = slot.out.length === 1 ? slot.out[0]! : Buffer.concat(slot.out);
      slot.out = [];
      this.emitReady();
    };
    slot.z.once('error', finish);
    if (frame.length) slot.z.write(frame);
    slot.z.flush(zlib.constants.ZSTD_e_end, () => finish());
  }

  private freeSlot(): Slot {
    const free = this.slots.find((s) => !s.busy);
    if (free) return free;
    // Output in 256 KiB pieces joined per frame: a frame-sized output buffer would stay referenced
    // by the (smaller) result until the next GC.
    const slot: Slot = {
      z: zlib.createZstdCompress({ params: this.params, chunkSize: 256 * 1024 }),
      busy: false,
      out: [],
    };
    slot.z.on('data', (c: Buffer) => slot.out.push(c));
    this.slots.push(slot);
    return slot;
  }

  private closeSlots(): void {
    for (const s of this.slots.splice(0)) s.z.destroy();
  }

  /** Emits finished frames in order while the readable side has room. */
  private emitReady(asked = false): void {
    while (this.queue.length && this.queue[0]!.done && !this.destroyed) {
      const job = this.queue[0]!;
      if (job.error) {
        this.destroy(job.error);
        return;
      }
      // Below the high-water mark only: a stalled consumer stops here, so frames stay counted.
      if (!asked && this.readableLength >= this.readableHighWaterMark) break;
      asked = false;
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

const ZSTD_MAGIC = 0xfd2fb528;
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;

type SplitState = { kind: 'header' } | { kind: 'block' } | { kind: 'skip'; then: 'block' | 'last' | 'end' };

/**
 * Re-slices a zstd stream so that no chunk spans two frames. Node's zstd decoder (24.x) stops at
 * the end of the first frame inside one write and drops the rest of that write, so concatenated
 * frames only decode when each frame ends a write. Parsing needs only the frame and block headers
 * (RFC 8878 §3.1); the bytes pass through uncopied. It also decides, on its own, that the stream
 * is whole zstd: bytes that are not a frame, or a stream that ends inside a frame, fail it with
 * BAD_PAYLOAD (a reader must never end without error on a cut archive, whatever its decoder does
 * with the end of its input). What is inside the blocks is the decoder's to check.
 */
export class ZstdFrameSplitter extends Transform {
  frames = 0;
  private state: SplitState = { kind: 'header' };
  private head: number[] = [];
  private remaining = 0;
  private checksum = false;
  private lastBlock = false;

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    try {
      this.cut(chunk, (piece) => this.push(piece));
      cb();
    } catch (e) {
      cb(e as Error);
    }
  }

  override _flush(cb: TransformCallback): void {
    try {
      this.checkEnd();
      cb();
    } catch (e) {
      cb(e as Error);
    }
  }

  /** Hands `chunk` on in pieces, each ending at a frame end or at the chunk's end. */
  cut(chunk: Buffer, emit: (piece: Buffer) => void): void {
    let start = 0;
    let pos = 0;
    // A zero-length block body (an empty frame's) ends where its header ends: finish it now.
    while (pos < chunk.length || (this.state.kind === 'skip' && this.remaining === 0)) {
      const s = this.state;
      if (s.kind === 'skip') {
        const n = Math.min(this.remaining, chunk.length - pos);
        this.remaining -= n;
        pos += n;
        if (this.remaining > 0) break;
        if (s.then === 'block') this.state = { kind: 'block' };
        else if (s.then === 'last' && this.checksum) {
          this.remaining = 4;
          this.state = { kind: 'skip', then: 'end' };
        } else {
          this.frames++;
          this.state = { kind: 'header' };
          if (pos > start) emit(chunk.subarray(start, pos));
          start = pos;
        }
        continue;
      }
      this.head.push(chunk[pos++]!);
      if (s.kind === 'block') {
        if (this.head.length < 3) continue;
        const h = this.head[0]! | (this.head[1]! << 8) | (this.head[2]! << 16);
        this.head = [];
        const type = (h >> 1) & 3;
        this.lastBlock = (h & 1) === 1;
        if (type === 3) throw badPayload(`frame ${this.frames + 1} has a block of the reserved type`);
        this.remaining = type === 1 ? 1 : h >>> 3;
        this.state = { kind: 'skip', then: this.lastBlock ? 'last' : 'block' };
        continue;
      }
      // Frame header: magic, descriptor, then fields whose sizes the descriptor gives.
      const need = this.headerLength();
      if (need === undefined)
        throw badPayload(`frame ${this.frames + 1} does not start with a zstd frame header`);
      if (this.head.length < need) continue;
      const h = this.head;
      const skippable = h[3] === 0x18 && h[2] === 0x4d && h[1] === 0x2a && (h[0]! & 0xf0) === 0x50;
      this.head = [];
      if (skippable) {
        this.remaining = this.skippableSize;
        this.state = { kind: 'skip', then: 'end' };
      } else this.state = { kind: 'block' };
    }
    if (start < chunk.length) emit(start === 0 ? chunk : chunk.subarray(start));
  }

  /** The stream has ended: it must end between frames. */
  checkEnd(): void {
    if (this.state.kind !== 'header' || this.head.length > 0)
      throw badPayload(`it ends inside frame ${this.frames + 1} (the archive was cut short)`);
  }

  private skippableSize = 0;

  /** Bytes of the frame header so far known to be needed; undefined when this is not zstd. */
  private headerLength(): number | undefined {
    const h = this.head;
    if (h.length < 4) return 4;
    const magic = (h[0]! | (h[1]! << 8) | (h[2]! << 16) | (h[3]! << 24)) >>> 0;
    if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      if (h.length < 8) return 8;
      this.skippableSize = (h[4]! | (h[5]! << 8) | (h[6]! << 16) | (h[7]! << 24)) >>> 0;
      return 8;
    }
    if (magic !== ZSTD_MAGIC) return undefined;
    if (h.length < 5) return 5;
    const fhd = h[4]!;
    const singleSegment = (fhd >> 5) & 1;
    const fcsFlag = fhd >> 6;
    const didFlag = fhd & 3;
    if (fhd & 0x08) return undefined; // reserved bit
    this.checksum = ((fhd >> 2) & 1) === 1;
    const fcs = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag]!;
    return 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][didFlag]! + fcs;
  }
}

/**
 * A zstd decoder for Coffer payloads: one frame (files written before frames were compressed in parallel) or many concatenated ones
 * (ParallelZstdCompress). The decoding itself stays one stream on libuv's pool, beside the
 * decryption on the main thread.
 */
export function createZstdDecompressor(): Duplex {
  return compose(
    new ZstdFrameSplitter(),
    zlib.createZstdDecompress({ chunkSize: 64 * 1024 }),
    // The last stage must not be the zlib stream: compose (Node 24) never settles when its last
    // stage fails while ending ("unexpected end of file"), so a cut payload hung the reader.
    async function* (source: AsyncIterable<Buffer>) {
      yield* source;
    },
  );
}

/**
 * A whole zstd payload in memory, decoded frame by frame: zlib's one-shot decoder stops at the end
 * of the first frame and returns the rest of a multi-frame payload nowhere.
 */
export function zstdDecompressFrames(payload: Buffer): Buffer {
  const splitter = new ZstdFrameSplitter();
  const out: Buffer[] = [];
  splitter.cut(payload, (frame) => out.push(zlib.zstdDecompressSync(frame)));
  splitter.checkEnd();
  return Buffer.concat(out);
}
