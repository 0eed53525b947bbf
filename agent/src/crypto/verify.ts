import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createDecryptor, DecryptTransform, type OpenResult } from './decrypt.js';
import { Compression, type Binding } from './format.js';
import type { SealedRecord } from './record.js';
import { trackPartial } from '../util/partial-files.js';
import { ByteCounter, discard } from '../util/streams.js';

export interface VerifyResult {
  /** Fingerprint of the key the file was written with (it matched the given key). */
  fingerprint: string;
  compression: 'zstd' | 'none';
  chunkSize: number;
  chunks: number;
  /** Bytes of (compressed) payload inside the file. */
  payloadBytes: number;
  fileBytes: number;
  /** Format version: 2 binds a label and a backup id and carries the sealed record. */
  version: number;
  binding?: Binding;
  record?: SealedRecord;
}

export interface VerifyOptions {
  /** Read through this open handle instead of opening `file` (restore keeps one handle for both passes). */
  handle?: FileHandle;
  /**
   * Receives each authenticated payload piece (still compressed), with backpressure, e.g. to check
   * the archive inside. Nothing is written to disk by verifyFile itself.
   */
  payload?: Writable;
  /**
   * Also decompress the payload and, for version 2, check the archive against the sealed record
   * (its length and SHA-256): what `coffer-agent verify` does. Without it only the file's
   * authenticity is checked (decryptFile checks the record as it decrypts).
   */
  archive?: boolean;
}

function toResult(r: OpenResult): VerifyResult {
  return {
    fingerprint: r.header.fingerprint.toString('hex'),
    compression: r.header.compression === Compression.Zstd ? 'zstd' : 'none',
    chunkSize: r.header.chunkSize,
    chunks: r.chunks,
    payloadBytes: r.payloadBytes,
    fileBytes: r.fileBytes,
    version: r.header.version,
    ...(r.header.binding ? { binding: r.header.binding } : {}),
    ...(r.record ? { record: r.record } : {}),
  };
}

function readStream(file: string, handle: FileHandle | undefined) {
  return handle
    ? createReadStream('', { fd: handle, start: 0, autoClose: false, highWaterMark: 256 * 1024 })
    : createReadStream(file, { highWaterMark: 256 * 1024 });
}

/**
 * Checks a whole Coffer file against `masterKey` — header, key fingerprint, every chunk's tag,
 * chunk order, the final chunk, the sealed record (version 2) and no trailing bytes — without
 * writing plaintext anywhere. The archive is compared with the record when it is decrypted.
 * Rejects with a CofferFormatError that names the problem (and the chunk), or the fs error.
 */
export async function verifyFile(
  file: string,
  masterKey: Buffer,
  opts: VerifyOptions = {},
): Promise<VerifyResult> {
  if (opts.archive) {
    const { stream, decrypt } = createDecryptor(masterKey);
    await pipeline(readStream(file, opts.handle), stream, discard());
    return toResult(decrypt.result!);
  }
  const decrypt = new DecryptTransform(masterKey);
  await pipeline(readStream(file, opts.handle), decrypt, opts.payload ?? discard());
  return toResult(decrypt.result!);
}

export interface DecryptFileResult extends VerifyResult {
  /** Bytes of the original (decompressed) data written. */
  outputBytes: number;
}

/**
 * Verifies `file`, then writes the original data to `out` (a path, written to a temporary name
 * with mode 0600 and renamed when complete; or any Writable such as stdout).
 */
export async function decryptFile(
  file: string,
  out: string | Writable,
  masterKey: Buffer,
): Promise<DecryptFileResult> {
  const handle = await open(file, 'r');
  try {
    const verified = await verifyFile(file, masterKey, { handle });
    const { stream } = createDecryptor(masterKey);
    const counter = new ByteCounter();
    if (typeof out !== 'string') {
      await pipeline(readStream(file, handle), stream, counter, out, { end: out !== process.stdout });
      return { ...verified, outputBytes: counter.bytes };
    }
    const tmp = path.join(path.dirname(out), `.${path.basename(out)}.${process.pid}.partial`);
    const untrack = trackPartial(tmp);
    try {
      await pipeline(
        readStream(file, handle),
        stream,
        counter,
        createWriteStream(tmp, { mode: 0o600, flags: 'wx' }),
      );
      await rename(tmp, out);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    } finally {
      untrack();
    }
    return { ...verified, outputBytes: counter.bytes };
  } finally {
    await handle.close();
  }
}
