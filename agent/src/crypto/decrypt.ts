import { createDecipheriv, createSecretKey, type KeyObject } from 'node:crypto';
import { pipeline, Readable, Transform, type Duplex, type TransformCallback } from 'node:stream';
import { compose } from '../util/streams.js';
import { badPayload, CofferFormatError } from './errors.js';
import {
  assertMasterKey,
  CHUNK_HEADER_LENGTH,
  checkFingerprint,
  chunkNonce,
  Compression,
  deriveFileKey,
  FINAL_FLAG,
  FORMAT_V2,
  HEADER_LENGTH,
  headerLength,
  MAGIC,
  MAX_CHUNKS,
  MAX_RECORD_LENGTH,
  parseHeader,
  recordNonce,
  TAG_LENGTH,
  type Header,
} from './format.js';
import { createZstdDecompressor, zstdDecompressFrames } from './parallel-zstd.js';
import { ArchiveDigest, checkArchive, parseRecord, sha256Hex, type SealedRecord } from './record.js';

/** A FIFO of buffers that hands out exact byte counts, copying only when a read spans buffers. */
class ByteQueue {
  private parts: Buffer[] = [];
  length = 0;
  push(b: Buffer): void {
    if (b.length) {
      this.parts.push(b);
      this.length += b.length;
    }
  }
  peekAll(): Buffer {
    if (this.parts.length > 1) this.parts = [Buffer.concat(this.parts, this.length)];
    return this.parts[0] ?? Buffer.alloc(0);
  }
  read(n: number): Buffer {
    const first = this.parts[0];
    let out: Buffer;
    if (first && first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.parts.shift();
      else this.parts[0] = first.subarray(n);
    } else {
      const all = this.peekAll();
      out = all.subarray(0, n);
      this.parts = all.length > n ? [all.subarray(n)] : [];
    }
    this.length -= n;
    return out;
  }
}

export interface OpenResult {
  header: Header;
  chunks: number;
  payloadBytes: number;
  fileBytes: number;
  /** Version 2: the authenticated sealed record (not part of the payload). */
  record?: SealedRecord;
}

/**
 * Incremental Coffer reader (versions 1 and 2): feed it file bytes in any slicing, it returns
 * authenticated payload pieces; `end()` checks the file was complete (for version 2, that its
 * sealed record authenticated). Every error is a CofferFormatError.
 */
export class ChunkOpener {
  private readonly queue = new ByteQueue();
  private header: Header | undefined;
  private headerBytes: Buffer | undefined;
  /** A KeyObject made once: a raw key would be turned into one for every chunk's decipher. */
  private key: KeyObject | undefined;
  private state: 'header' | 'chunkHead' | 'chunkBody' | 'recordHead' | 'recordBody' | 'done' = 'header';
  private record: SealedRecord | undefined;
  private index = 0;
  private chunkOffset = HEADER_LENGTH;
  private bodyLength = 0;
  private final = false;
  private trailing = 0;
  private payloadBytes = 0;
  private fileBytes = 0;

  constructor(private readonly masterKey: Buffer) {
    assertMasterKey(masterKey);
  }

  /** The parsed header, once all of it has arrived. */
  get parsedHeader(): Header | undefined {
    return this.header;
  }

  feed(data: Buffer): Buffer[] {
    this.fileBytes += data.length;
    if (this.state === 'done') {
      this.trailing += data.length;
      return [];
    }
    this.queue.push(data);
    const out: Buffer[] = [];
    for (;;) {
      if (this.state === 'header') {
        const seen = this.queue.peekAll();
        // Reject a non-Coffer file as soon as its first bytes say so.
        const n = Math.min(seen.length, MAGIC.length);
        if (!seen.subarray(0, n).equals(MAGIC.subarray(0, n))) parseHeader(seen);
        // A version 2 header's length is known once its two length bytes have arrived.
        const length = seen.length >= HEADER_LENGTH ? headerLength(seen) : HEADER_LENGTH;
        if (seen.length < length) return out;
        this.headerBytes = Buffer.from(this.queue.read(length));
        this.chunkOffset = length;
        this.header = parseHeader(this.headerBytes);
        checkFingerprint(this.header, this.masterKey);
        this.key = createSecretKey(deriveFileKey(this.masterKey, this.header.salt));
        this.state = 'chunkHead';
      } else if (this.state === 'chunkHead') {
        if (this.queue.length < CHUNK_HEADER_LENGTH) return out;
        const word = this.queue.read(CHUNK_HEADER_LENGTH).readUInt32BE(0);
        this.final = (word & FINAL_FLAG) !== 0;
        this.bodyLength = word & ~FINAL_FLAG;
        const chunkSize = this.header!.chunkSize;
        const badLength =
          this.bodyLength > chunkSize ||
          (!this.final && this.bodyLength !== chunkSize) ||
          (this.final && this.bodyLength === 0 && this.index > 0);
        if (badLength) throw this.corrupt('its length field is invalid');
        // Version 2 keeps the counter after the final chunk for the record.
        const limit = this.header!.version === FORMAT_V2 ? MAX_CHUNKS - 1 : MAX_CHUNKS;
        if (this.index >= limit) throw this.corrupt('the file has more chunks than the format allows');
        this.state = 'chunkBody';
      } else if (this.state === 'chunkBody') {
        if (this.queue.length < this.bodyLength + TAG_LENGTH) return out;
        const body = this.queue.read(this.bodyLength);
        const tag = this.queue.read(TAG_LENGTH);
        out.push(this.open(body, tag));
        this.payloadBytes += this.bodyLength;
        this.chunkOffset += CHUNK_HEADER_LENGTH + this.bodyLength + TAG_LENGTH;
        this.index++;
        if (this.final) {
          if (this.header!.version === FORMAT_V2) {
            this.state = 'recordHead';
            continue;
          }
          return this.finish(out);
        }
        this.state = 'chunkHead';
      } else if (this.state === 'recordHead') {
        if (this.queue.length < CHUNK_HEADER_LENGTH) return out;
        this.bodyLength = this.queue.read(CHUNK_HEADER_LENGTH).readUInt32BE(0);
        if (this.bodyLength > MAX_RECORD_LENGTH) throw this.corruptRecord('its length field is invalid');
        this.state = 'recordBody';
      } else if (this.state === 'recordBody') {
        if (this.queue.length < this.bodyLength + TAG_LENGTH) return out;
        const body = this.queue.read(this.bodyLength);
        const tag = this.queue.read(TAG_LENGTH);
        this.record = parseRecord(this.openRecord(body, tag));
        return this.finish(out);
      }
    }
  }

  private finish(out: Buffer[]): Buffer[] {
    this.state = 'done';
    this.trailing = this.queue.length;
    return out;
  }

  end(): OpenResult {
    switch (this.state) {
      case 'header':
        parseHeader(this.queue.peekAll()); // throws NOT_COFFER or TRUNCATED
        throw new CofferFormatError('TRUNCATED', 'The file is truncated: it ends inside the header.');
      case 'chunkHead':
        throw new CofferFormatError(
          'TRUNCATED',
          this.queue.length === 0
            ? `The file is truncated: it ends after chunk ${this.index - 1} and the final chunk is missing.`
            : `The file is truncated: it ends inside the length field of chunk ${this.index}.`,
          { chunk: this.index, offset: this.chunkOffset },
        );
      case 'chunkBody': {
        const missing = this.bodyLength + TAG_LENGTH - this.queue.length;
        throw new CofferFormatError(
          'TRUNCATED',
          `The file is truncated: chunk ${this.index} (at byte ${this.chunkOffset}) is missing its last ${missing} byte(s).`,
          { chunk: this.index, offset: this.chunkOffset },
        );
      }
      case 'recordHead':
      case 'recordBody':
        throw new CofferFormatError(
          'TRUNCATED',
          this.state === 'recordHead' && this.queue.length === 0
            ? `The file is truncated: its sealed record (at byte ${this.chunkOffset}) is missing.`
            : `The file is truncated: it ends inside its sealed record (at byte ${this.chunkOffset}).`,
          { offset: this.chunkOffset },
        );
      case 'done':
        if (this.trailing > 0) {
          throw new CofferFormatError(
            'TRAILING_DATA',
            `The file has ${this.trailing} byte(s) of unexpected data after its ${this.record ? 'sealed record' : 'final chunk'} (at byte ${this.fileBytes - this.trailing}); it was altered after it was written.`,
            { chunk: this.index, offset: this.fileBytes - this.trailing },
          );
        }
        return {
          header: this.header!,
          chunks: this.index,
          payloadBytes: this.payloadBytes,
          fileBytes: this.fileBytes,
          ...(this.record ? { record: this.record } : {}),
        };
    }
  }

  private open(body: Buffer, tag: Buffer): Buffer {
    const plain = this.gcmOpen(chunkNonce(this.header!.noncePrefix, this.index, this.final), body, tag);
    if (!plain) throw this.corrupt('it failed authentication (the file is corrupt or was altered)');
    return plain;
  }

  private openRecord(body: Buffer, tag: Buffer): Buffer {
    const plain = this.gcmOpen(recordNonce(this.header!.noncePrefix, this.index), body, tag);
    if (!plain) throw this.corruptRecord('it failed authentication (the file is corrupt or was altered)');
    return plain;
  }

  /** The plaintext, or undefined when the tag does not check. */
  private gcmOpen(nonce: Buffer, body: Buffer, tag: Buffer): Buffer | undefined {
    const decipher = createDecipheriv('aes-256-gcm', this.key!, nonce);
    decipher.setAAD(this.headerBytes!);
    decipher.setAuthTag(tag);
    const plain = decipher.update(body);
    try {
      decipher.final();
    } catch {
      return undefined;
    }
    return plain;
  }

  private corruptRecord(why: string): CofferFormatError {
    return new CofferFormatError(
      'CORRUPT_CHUNK',
      `The sealed record after chunk ${this.index - 1} (at byte ${this.chunkOffset}) is corrupt: ${why}.`,
      { chunk: this.index, offset: this.chunkOffset },
    );
  }

  private corrupt(why: string): CofferFormatError {
    return new CofferFormatError(
      'CORRUPT_CHUNK',
      `Chunk ${this.index} (at byte ${this.chunkOffset}) is corrupt: ${why}.`,
      {
        chunk: this.index,
        offset: this.chunkOffset,
      },
    );
  }
}

/**
 * File bytes in, authenticated payload out (no decompression). Emits 'header' once parsed; an
 * `onHeader` that throws fails the stream with its error at once (a restore refuses a file bound
 * to another backup as soon as its header has arrived).
 */
export class DecryptTransform extends Transform {
  private readonly opener: ChunkOpener;
  result: OpenResult | undefined;
  private headerEmitted = false;

  constructor(
    masterKey: Buffer,
    private readonly onHeader?: (header: Header) => void,
  ) {
    super();
    this.opener = new ChunkOpener(masterKey);
  }

  get header(): Header | undefined {
    return this.opener.parsedHeader;
  }

  override _transform(data: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    try {
      const pieces = this.opener.feed(data);
      if (!this.headerEmitted && this.opener.parsedHeader) {
        this.headerEmitted = true;
        this.onHeader?.(this.opener.parsedHeader);
        this.emit('header', this.opener.parsedHeader);
      }
      for (const p of pieces) if (p.length) this.push(p);
      cb();
    } catch (e) {
      cb(e as Error);
    }
  }

  override _flush(cb: TransformCallback): void {
    try {
      this.result = this.opener.end();
      cb();
    } catch (e) {
      cb(e as Error);
    }
  }
}

/** A decoder failure on an authenticated payload, as BAD_PAYLOAD (a CofferFormatError stays as it is). */
export function payloadError(e: unknown): CofferFormatError {
  if (e instanceof CofferFormatError) return e;
  return badPayload(e instanceof Error ? e.message : String(e));
}

export interface Decryptor {
  /** Write the encrypted file here; read the original raw bytes from here. */
  stream: Duplex;
  decrypt: DecryptTransform;
}

/**
 * encrypted file → authenticate/decrypt → zstd decompress (when the header says so), as one Duplex.
 * Each chunk is released only after its tag checks, but a truncated or altered file is only
 * detected when that point is reached: verify a file first (verifyFile) before acting on the output.
 * For a version 2 file the archive that came out is checked against the sealed record at the end
 * (BAD_RECORD when it differs).
 */
export function createDecryptor(masterKey: Buffer): Decryptor {
  const decrypt = new DecryptTransform(masterKey);
  const digest = new ArchiveDigest();
  const stream = compose(
    decrypt,
    async function* (source: AsyncIterable<Buffer>) {
      const it = source[Symbol.asyncIterator]();
      const first = await it.next();
      if (first.done) return;
      const rest = (async function* () {
        yield first.value;
        for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
      })();
      if (decrypt.header?.compression !== Compression.Zstd) {
        yield* rest;
        return;
      }
      // Not compose(Readable.from(rest), unzstd): compose around a composed decoder, iterated
      // here, leaves the decoder's error uncaught and the stream unsettled (Node 24) — a
      // non-zstd payload crashed the process and a cut one ended it with exit code 0.
      const unzstd = createZstdDecompressor();
      try {
        yield* pipeline(Readable.from(rest), unzstd, () => undefined) as AsyncIterable<Buffer>;
      } catch (e) {
        throw payloadError(e);
      }
    },
    digest,
    async function* (source: AsyncIterable<Buffer>) {
      yield* source;
      // Every byte has passed the digest and the decryptor has checked the file's end.
      const record = decrypt.result?.record;
      if (record) checkArchive(record, digest.bytes, digest.sha256());
    },
  );
  return { stream, decrypt };
}

/** In-memory decryption of a whole file to its payload (no decompression), for vectors and tests. */
export function decryptPayload(file: Buffer, masterKey: Buffer): { payload: Buffer } & OpenResult {
  const opener = new ChunkOpener(masterKey);
  const parts = opener.feed(file);
  const result = opener.end();
  return { payload: Buffer.concat(parts), ...result };
}

/**
 * In-memory decryption of a whole small file to the archive (decompressed; for version 2 checked
 * against its sealed record): what a reader of the test vectors does. Every frame is decoded, as
 * docs/encryption-format.md §5 step 7 requires; large files go through createDecryptor.
 */
export function decryptArchive(file: Buffer, masterKey: Buffer): { archive: Buffer } & OpenResult {
  const { payload, ...result } = decryptPayload(file, masterKey);
  let archive = payload;
  if (result.header.compression === Compression.Zstd && payload.length) {
    try {
      archive = zstdDecompressFrames(payload);
    } catch (e) {
      throw payloadError(e);
    }
  }
  if (result.record) {
    checkArchive(result.record, archive.length, sha256Hex(archive));
  }
  return { archive, ...result };
}
