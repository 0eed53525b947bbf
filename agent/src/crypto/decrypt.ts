import { createDecipheriv } from 'node:crypto';
import { Readable, Transform, type Duplex, type TransformCallback } from 'node:stream';
import { compose } from '../util/streams.js';
import { CofferFormatError } from './errors.js';
import {
  assertMasterKey,
  CHUNK_HEADER_LENGTH,
  checkFingerprint,
  chunkNonce,
  Compression,
  deriveFileKey,
  FINAL_FLAG,
  HEADER_LENGTH,
  MAGIC,
  MAX_CHUNKS,
  parseHeader,
  TAG_LENGTH,
  type Header,
} from './format.js';
import { createZstdDecompressor } from './parallel-zstd.js';

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
}

/**
 * Incremental Coffer v1 reader: feed it file bytes in any slicing, it returns authenticated payload
 * pieces; `end()` checks the file was complete. Every error is a CofferFormatError.
 */
export class ChunkOpener {
  private readonly queue = new ByteQueue();
  private header: Header | undefined;
  private headerBytes: Buffer | undefined;
  private key: Buffer | undefined;
  private state: 'header' | 'chunkHead' | 'chunkBody' | 'done' = 'header';
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

  /** The parsed header, once the first 67 bytes have arrived. */
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
        if (this.queue.length < HEADER_LENGTH) {
          // Reject a non-Coffer file as soon as its first bytes say so.
          const seen = this.queue.peekAll();
          const n = Math.min(seen.length, MAGIC.length);
          if (!seen.subarray(0, n).equals(MAGIC.subarray(0, n))) parseHeader(seen);
          return out;
        }
        this.headerBytes = Buffer.from(this.queue.read(HEADER_LENGTH));
        this.header = parseHeader(this.headerBytes);
        checkFingerprint(this.header, this.masterKey);
        this.key = deriveFileKey(this.masterKey, this.header.salt);
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
        if (this.index >= MAX_CHUNKS) throw this.corrupt('the file has more chunks than the format allows');
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
          this.state = 'done';
          this.trailing = this.queue.length;
          return out;
        }
        this.state = 'chunkHead';
      }
    }
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
      case 'done':
        if (this.trailing > 0) {
          throw new CofferFormatError(
            'TRAILING_DATA',
            `The file has ${this.trailing} byte(s) of unexpected data after its final chunk (at byte ${this.chunkOffset}); it was altered after it was written.`,
            { chunk: this.index, offset: this.chunkOffset },
          );
        }
        return {
          header: this.header!,
          chunks: this.index,
          payloadBytes: this.payloadBytes,
          fileBytes: this.fileBytes,
        };
    }
  }

  private open(body: Buffer, tag: Buffer): Buffer {
    const decipher = createDecipheriv(
      'aes-256-gcm',
      this.key!,
      chunkNonce(this.header!.noncePrefix, this.index, this.final),
    );
    decipher.setAAD(this.headerBytes!);
    decipher.setAuthTag(tag);
    const plain = decipher.update(body);
    try {
      decipher.final();
    } catch {
      throw this.corrupt('it failed authentication (the file is corrupt or was altered)');
    }
    return plain;
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

/** File bytes in, authenticated payload out (no decompression). Emits 'header' once parsed. */
export class DecryptTransform extends Transform {
  private readonly opener: ChunkOpener;
  result: OpenResult | undefined;
  private headerEmitted = false;

  constructor(masterKey: Buffer) {
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

function payloadError(e: unknown): CofferFormatError {
  const why = e instanceof Error ? e.message : String(e);
  return new CofferFormatError(
    'BAD_PAYLOAD',
    `The backup decrypted correctly but its zstd data is invalid: ${why}`,
  );
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
 */
export function createDecryptor(masterKey: Buffer): Decryptor {
  const decrypt = new DecryptTransform(masterKey);
  const stream = compose(decrypt, async function* (source: AsyncIterable<Buffer>) {
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
    const unzstd = createZstdDecompressor();
    try {
      yield* compose(Readable.from(rest), unzstd) as AsyncIterable<Buffer>;
    } catch (e) {
      throw e instanceof CofferFormatError ? e : payloadError(e);
    }
  });
  return { stream, decrypt };
}

/** In-memory decryption of a whole file to its payload (no decompression), for vectors and tests. */
export function decryptPayload(file: Buffer, masterKey: Buffer): { payload: Buffer } & OpenResult {
  const opener = new ChunkOpener(masterKey);
  const parts = opener.feed(file);
  const result = opener.end();
  return { payload: Buffer.concat(parts), ...result };
}
