import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Creates `dir` (and missing parents) with mode 0700. An existing directory is left as it is:
 * the config may live in a shared place chosen with --config, whose mode is not ours to change.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  try {
    await stat(dir);
  } catch {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  }
}

/**
 * Writes `data` to `file` atomically with mode 0600: a temporary file in the same directory,
 * fsync, rename over the target, fsync the directory. Readers see the old or the new file, never
 * a partial one, and the content is never readable by others, not even briefly.
 */
export async function writeFileAtomic(file: string, data: string | Buffer): Promise<void> {
  const dir = path.dirname(file);
  await ensurePrivateDir(dir);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(data);
    await fh.chmod(0o600); // in case a umask or an ACL widened it
    await fh.sync();
  } catch (e) {
    await fh.close();
    await rm(tmp, { force: true });
    throw e;
  }
  await fh.close();
  try {
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  try {
    const d = await open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // some filesystems refuse fsync on directories; the rename is still atomic
  }
}
