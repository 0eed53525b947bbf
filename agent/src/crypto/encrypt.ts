import { createCipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { Transform, type Duplex, type TransformCallback } from 'node:stream';
import { compose } from '../util/streams.js';
import {
  assertMasterKey,
  CHUNK_HEADER_LENGTH,
  chunkNonce,
  Compression,
  DEFAULT_CHUNK_SIZE,
  deriveFileKey,
  encodeHeader,
  FINAL_FLAG,
  FORMAT_V1,
  FORMAT_V2,
  keyFingerprint,
  MAX_CHUNKS,
  MAX_RECORD_LENGTH,
  NONCE_PREFIX_LENGTH,
  recordNonce,
  SALT_LENGTH,
  TAG_LENGTH,
  validChunkSize,
  type Binding,
} from './format.js';
import { ParallelZstdCompress } from './parallel-zstd.js';
import { ArchiveDigest, encodeRecord, type RecordNamespace, type SealedRecord } from './record.js';

export interface EncryptOptions {
  masterKey: Buffer;
  /** Plaintext bytes per chunk (default 64 KiB). */
  chunkSize?: number;
  /** What the payload is; `createEncryptor` sets this itself. Default zstd. */
  compression?: Compression;
  /** Test vectors only: fixed salt instead of 32 random bytes. */
  salt?: Buffer;
  /** Test vectors only: fixed nonce prefix instead of 7 random bytes. */
  noncePrefix?: Buffer;
  /**
   * Given, the file is version 2: the header binds this label and backup id, and `record` is
   * sealed after the final chunk. Without it the file is version 1 (no binding, no record).
   */
  binding?: Binding;
  /** Version 2: the archive's record, asked for once the payload has ended. */
  record?: () => SealedRecord;
  /** Tests only: the record's plaintext as given, instead of encodeRecord(record()). */
  recordBytes?: () => Buffer;
}

/** Holds one file's header and key and seals its chunks in order. */
class ChunkSealer {
  readonly header: Buffer;
  readonly chunkSize: number;
  /** A KeyObject made once: a raw key would be turned into one for every chunk's cipher. */
  private readonly key: KeyObject;
  private readonly noncePrefix: Buffer;
  private index = 0;

  constructor(opts: EncryptOptions) {
    assertMasterKey(opts.masterKey);
    const chunkSize = opts.chunkSize ?? DEFAULT_CHUNK_SIZE;
    if (!validChunkSize(chunkSize)) throw new RangeError(`invalid chunk size ${chunkSize}`);
    const salt = opts.salt ?? randomBytes(SALT_LENGTH);
    const noncePrefix = opts.noncePrefix ?? randomBytes(NONCE_PREFIX_LENGTH);
    if (salt.length !== SALT_LENGTH) throw new RangeError(`salt must be ${SALT_LENGTH} bytes`);
    if (noncePrefix.length !== NONCE_PREFIX_LENGTH)
      throw new RangeError(`nonce prefix must be ${NONCE_PREFIX_LENGTH} bytes`);
    this.chunkSize = chunkSize;
    this.noncePrefix = noncePrefix;
    this.key = createSecretKey(deriveFileKey(opts.masterKey, salt));
    this.header = encodeHeader({
      version: opts.binding ? FORMAT_V2 : FORMAT_V1,
      binding: opts.binding,
      compression: opts.compression ?? Compression.Zstd,
      chunkSize,
      salt,
      noncePrefix,
      fingerprint: keyFingerprint(opts.masterKey),
    });
  }

  /** length word (final flag | plaintext length) || ciphertext || 16-byte tag */
  seal(plain: Buffer, final: boolean): Buffer {
    return this.sealAll([plain], final);
  }

  /**
   * Seals `plains` as consecutive chunks into one buffer (the last one final when `final`): one
   * allocation and one write downstream per batch instead of per chunk, and no per-chunk join.
   */
  sealAll(plains: readonly Buffer[], final: boolean): Buffer {
    let size = 0;
    for (const p of plains) size += CHUNK_HEADER_LENGTH + p.length + TAG_LENGTH;
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    plains.forEach((plain, i) => {
      if (plain.length > this.chunkSize) throw new RangeError('chunk larger than the chunk size');
      if (this.index >= MAX_CHUNKS)
        throw new RangeError('payload too large for one Coffer file (2^32 chunks)');
      const last = final && i === plains.length - 1;
      const nonce = chunkNonce(this.noncePrefix, this.index, last);
      at = this.sealInto(out, at, (last ? FINAL_FLAG : 0) + plain.length, nonce, plain);
      this.index++;
    });
    return out;
  }

  /** After the final chunk (version 2): length word (uint32) || ciphertext || tag, its own nonce. */
  sealRecord(plain: Buffer): Buffer {
    if (plain.length > MAX_RECORD_LENGTH) throw new RangeError('the sealed record is too large');
    if (this.index >= MAX_CHUNKS)
      throw new RangeError('payload too large for one Coffer file (2^32 - 1 chunks)');
    const out = Buffer.allocUnsafe(CHUNK_HEADER_LENGTH + plain.length + TAG_LENGTH);
    this.sealInto(out, 0, plain.length, recordNonce(this.noncePrefix, this.index), plain);
    return out;
  }

  /** Writes word || ciphertext || tag at `at` in `out`; returns the offset after it. */
  private sealInto(out: Buffer, at: number, word: number, nonce: Buffer, plain: Buffer): number {
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(this.header);
    out.writeUInt32BE(word, at);
    at += CHUNK_HEADER_LENGTH;
    at += cipher.update(plain).copy(out, at);
    at += cipher.final().copy(out, at);
    return at + cipher.getAuthTag().copy(out, at);
  }
}

/** The record's plaintext for a version 2 file (undefined for version 1). */
function recordPlaintext(opts: EncryptOptions): Buffer | undefined {
  if (!opts.binding) return undefined;
  if (opts.recordBytes) return opts.recordBytes();
  if (!opts.record) throw new RangeError('a bound (version 2) file needs its sealed record');
  return encodeRecord(opts.record());
}

/**
 * Encrypts a payload stream into the Coffer v1 layout (header, then length-prefixed GCM chunks).
 * It does not compress: it writes whatever bytes it is given as the payload.
 */
export class EncryptTransform extends Transform {
  private readonly sealer: ChunkSealer;
  private readonly opts: EncryptOptions;
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private headerSent = false;
  /** Payload bytes taken in and file bytes produced, for callers that report sizes. */
  bytesIn = 0;
  bytesOut = 0;

  constructor(opts: EncryptOptions) {
    super();
    this.opts = opts;
    this.sealer = new ChunkSealer(opts);
  }

  get header(): Buffer {
    return this.sealer.header;
  }

  override _transform(data: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    try {
      this.sendHeader();
      this.bytesIn += data.length;
      this.pending.push(data);
      this.pendingLength += data.length;
      // Hold back up to one full chunk: only the end of input tells which chunk is final, and the
      // final chunk must be non-empty unless the whole payload is empty.
      const ready = Math.ceil(this.pendingLength / this.sealer.chunkSize) - 1;
      if (ready > 0) this.pushCounted(this.sealer.sealAll(this.takeChunks(ready), false));
      cb();
    } catch (e) {
      cb(e as Error);
    }
  }

  override _flush(cb: TransformCallback): void {
    try {
      this.sendHeader();
      // _transform leaves at most one chunk pending: it is the final one (empty for an empty payload).
      this.pushCounted(this.sealer.sealAll(this.takeChunks(1), true));
      const record = recordPlaintext(this.opts);
      if (record) this.pushCounted(this.sealer.sealRecord(record));
      cb();
    } catch (e) {
      cb(e as Error);
    }
  }

  private pushCounted(b: Buffer): void {
    this.bytesOut += b.length;
    this.push(b);
  }

  private sendHeader(): void {
    if (this.headerSent) return;
    this.headerSent = true;
    this.pushCounted(this.sealer.header);
  }

  /**
   * The next `n` chunks' plaintexts from the pending input (the last one shorter when the input
   * runs out): views into the pieces received, joined only where a chunk spans two of them.
   */
  private takeChunks(n: number): Buffer[] {
    const out: Buffer[] = [];
    for (let i = 0; i < n; i++) {
      const want = Math.min(this.sealer.chunkSize, this.pendingLength);
      const parts: Buffer[] = [];
      for (let got = 0; got < want;) {
        const piece = this.pending[0]!;
        const take = Math.min(piece.length, want - got);
        parts.push(take === piece.length ? piece : piece.subarray(0, take));
        if (take === piece.length) this.pending.shift();
        else this.pending[0] = piece.subarray(take);
        got += take;
      }
      this.pendingLength -= want;
      out.push(parts.length === 1 ? parts[0]! : Buffer.concat(parts, want));
    }
    return out;
  }
}

/**
 * Default zstd level, chosen from measurements on the benchmark's archives (docs/benchmarks.md):
 * the stored file must be no larger than `gzip -6`'s at the stage throughput the issue asks for.
 * The level is not part of the format: every zstd decoder reads every level.
 */
export const DEFAULT_ZSTD_LEVEL = 3;

export interface Encryptor {
  /** Write the raw archive here; read the encrypted file from here. */
  stream: Duplex;
  /** Counts and hashes the raw archive for the sealed record (bound files only). */
  digest?: ArchiveDigest;
  /** The EncryptTransform inside, for byte counts and the header. */
  encrypt: EncryptTransform;
  /** The frame compressor in front of it (absent without compression), for its counters. */
  zstd?: ParallelZstdCompress;
}

export interface EncryptorOptions extends Omit<EncryptOptions, 'compression' | 'record'> {
  /** A bound file's record lists these namespaces (the caller walks the archive); length and digest are measured here. */
  namespaces?: () => RecordNamespace[];
  compress?: boolean;
  zstdLevel?: number;
  /** Uncompressed bytes per zstd frame; frames are compressed concurrently (parallel-zstd.ts). */
  zstdFrameSize?: number;
  /** zstd frames compressing or waiting to be encrypted, at most. */
  zstdMaxInFlight?: number;
}

/**
 * raw bytes → (digest) → zstd frames on every core → encrypt, as one Duplex with backpressure end
 * to end. With a binding the file is version 2 and ends with the sealed record.
 */
export function createEncryptor(opts: EncryptorOptions): Encryptor {
  const compress = opts.compress ?? true;
  const digest = opts.binding ? new ArchiveDigest() : undefined;
  const encrypt = new EncryptTransform({
    ...opts,
    compression: compress ? Compression.Zstd : Compression.None,
    record: () => ({
      archiveBytes: digest!.bytes,
      archiveSha256: digest!.sha256(),
      namespaces: opts.namespaces?.() ?? [],
    }),
  });
  const zstd = compress
    ? new ParallelZstdCompress({
        level: opts.zstdLevel ?? DEFAULT_ZSTD_LEVEL,
        frameSize: opts.zstdFrameSize,
        maxInFlight: opts.zstdMaxInFlight,
      })
    : undefined;
  const stages = [digest, zstd, encrypt].filter((s) => s !== undefined);
  const stream = stages.length === 1 ? encrypt : compose(...stages);
  return { stream, encrypt, zstd, digest };
}

/** Deterministic, in-memory encryption of an already-prepared payload (test vectors, small data). */
export function encryptPayload(payload: Buffer, opts: EncryptOptions): Buffer {
  const sealer = new ChunkSealer(opts);
  const out = [sealer.header];
  let pos = 0;
  while (payload.length - pos > sealer.chunkSize) {
    out.push(sealer.seal(payload.subarray(pos, pos + sealer.chunkSize), false));
    pos += sealer.chunkSize;
  }
  out.push(sealer.seal(payload.subarray(pos), true));
  const record = recordPlaintext(opts);
  if (record) out.push(sealer.sealRecord(record));
  return Buffer.concat(out);
}
