import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { assertObjectKey, type BlobBackend, type BlobWriter, type ByteRange } from './types.js';

const MiB = 1024 * 1024;
const TMP_NAME = /^[0-9a-f]{32}$/;

/**
 * Blobs as files: an upload goes to `<dir>/tmp/<random>`, and commit fsyncs it and renames it to
 * `<dir>/blobs/<objectKey>` (a rename within one filesystem is atomic, so a reader never sees a
 * half-written blob). Abort deletes the temp file.
 */
export function fsBackend(dir: string): BlobBackend {
  const tmpDir = path.join(dir, 'tmp');
  const blobsDir = path.join(dir, 'blobs');
  const finalPath = (objectKey: string) => path.join(blobsDir, ...assertObjectKey(objectKey).split('/'));
  const tmpPath = (ref: string) => {
    if (!TMP_NAME.test(ref)) throw new Error(`invalid temp file name ${JSON.stringify(ref)}`);
    return path.join(tmpDir, ref);
  };

  return {
    name: 'fs',

    async init() {
      await fsp.mkdir(tmpDir, { recursive: true });
      await fsp.mkdir(blobsDir, { recursive: true });
    },

    async createWriter(objectKey) {
      const target = finalPath(objectKey);
      const ref = randomBytes(16).toString('hex');
      const tmp = tmpPath(ref);
      // flush: the file is fsynced before it is closed, so a committed blob survives a crash.
      const out = fs.createWriteStream(tmp, {
        flags: 'wx',
        mode: 0o600,
        flush: true,
        highWaterMark: 4 * MiB,
      });
      let failure: Error | undefined;
      out.on('error', (err) => {
        failure ??= err;
      });
      await Promise.race([once(out, 'ready'), once(out, 'error')]);
      if (failure) throw failure;

      const writer: BlobWriter = {
        ref,
        async write(chunk) {
          if (failure) throw failure;
          if (!out.write(chunk)) await Promise.race([once(out, 'drain'), once(out, 'close')]);
          if (failure) throw failure;
        },
        async commit() {
          if (failure) throw failure;
          out.end();
          await finished(out);
          await fsp.mkdir(path.dirname(target), { recursive: true });
          await fsp.rename(tmp, target);
          await fsyncDir(path.dirname(target));
        },
        async abort() {
          out.destroy();
          await finished(out).catch(() => undefined);
          await fsp.rm(tmp, { force: true });
        },
      };
      return writer;
    },

    async read(objectKey: string, range?: ByteRange): Promise<Readable> {
      const file = finalPath(objectKey);
      const handle = await fsp.open(file, 'r'); // fails now (ENOENT) rather than mid-stream
      return handle.createReadStream({
        start: range?.start,
        end: range?.end,
        highWaterMark: MiB,
        autoClose: true,
      });
    },

    async remove(objectKey) {
      const file = finalPath(objectKey);
      await fsp.rm(file, { force: true });
      // Tidy the now-empty <blobId> and <userId> folders; another upload may be filling them.
      for (let d = path.dirname(file); d !== blobsDir; d = path.dirname(d)) {
        try {
          await fsp.rmdir(d);
        } catch {
          break;
        }
      }
    },

    async discard(ref) {
      await fsp.rm(tmpPath(ref), { force: true });
    },

    async *listIncomplete() {
      const names = await fsp.readdir(tmpDir).catch(() => [] as string[]);
      for (const name of names) {
        if (!TMP_NAME.test(name)) continue;
        const st = await fsp.stat(path.join(tmpDir, name)).catch(() => undefined);
        if (st) yield { ref: name, startedAt: st.mtime };
      }
    },

    async ping() {
      try {
        await fsp.access(tmpDir, fs.constants.W_OK);
        await fsp.access(blobsDir, fs.constants.W_OK);
        return true;
      } catch {
        return false;
      }
    },
  };
}

async function fsyncDir(dir: string) {
  const h = await fsp.open(dir, 'r');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}
