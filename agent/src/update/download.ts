// Downloads one release file and proves it is the one the server announced: the compressed copy
// (zstd, a quarter of the size) when there is one, decompressed with node:zlib; the hashes of what
// arrived and of what was written must both match before the file may replace anything.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, rm } from 'node:fs/promises';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { networkReason, releaseUrl, UpdateError, type ReleaseFile } from './release.js';

/** Passes bytes through while hashing and counting them. */
class Digest extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    cb(null, chunk);
  }
}

const mismatch = (name: string) =>
  new UpdateError(
    `${name} does not match its SHA-256 in SHA256SUMS; the download was discarded and this version keeps running`,
  );

/**
 * Writes the verified binary to `dest` (mode 0755). The compressed copy is downloaded beside it and
 * checked before it is decompressed, so nothing unverified is ever unpacked; on any failure both
 * files are removed and an UpdateError says why.
 */
export async function downloadVerified(
  server: string,
  version: string,
  file: ReleaseFile,
  dest: string,
  fetchImpl: typeof fetch = fetch,
): Promise<void> {
  const wire = file.compressed ?? file;
  const wireDest = file.compressed ? `${dest}.download` : dest;
  try {
    const url = releaseUrl(server, wire.name, version);
    let res: Response;
    try {
      res = await fetchImpl(url, { signal: AbortSignal.timeout(30 * 60_000) });
    } catch (e) {
      throw new UpdateError(`cannot download ${wire.name} (${networkReason(e)})`);
    }
    if (!res.ok || !res.body) throw new UpdateError(`cannot download ${wire.name} (HTTP ${res.status})`);
    const received = new Digest();
    try {
      await pipeline(
        Readable.fromWeb(res.body as import('node:stream/web').ReadableStream),
        received,
        createWriteStream(wireDest, { mode: 0o700 }),
      );
    } catch (e) {
      throw new UpdateError(`the download of ${wire.name} was interrupted (${(e as Error).message})`);
    }
    if (received.bytes !== wire.size || received.hash.digest('hex') !== wire.sha256)
      throw mismatch(wire.name);
    if (!file.compressed) {
      // written 0700 while unverified; the service user must be able to run what root installs
      await chmod(dest, 0o755);
      return;
    }

    const written = new Digest();
    try {
      await pipeline(
        createReadStream(wireDest),
        zlib.createZstdDecompress({ params: { [zlib.constants.ZSTD_d_windowLogMax]: 31 } }),
        written,
        createWriteStream(dest, { mode: 0o755 }),
      );
    } catch (e) {
      throw new UpdateError(`${wire.name} could not be decompressed (${(e as Error).message})`);
    }
    if (written.bytes !== file.size || written.hash.digest('hex') !== file.sha256) throw mismatch(file.name);
    await chmod(dest, 0o755); // whatever the umask: the service user runs what root installs
  } catch (e) {
    await rm(dest, { force: true });
    throw e;
  } finally {
    if (wireDest !== dest) await rm(wireDest, { force: true });
  }
}
