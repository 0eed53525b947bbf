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
 * The owner a file written by root should have: the file's own when it exists, else its folder's.
 * Only root can (and needs to) give a file away.
 */
async function ownerToKeep(file: string): Promise<{ uid: number; gid: number } | undefined> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const st = await stat(file).catch(() => stat(path.dirname(file)));
  return st.uid === 0 && st.gid === 0 ? undefined : { uid: st.uid, gid: st.gid };
}

/**
 * Writes `data` to `file` atomically with mode 0600: a temporary file in the same directory,
 * fsync, rename over the target, fsync the directory. Readers see the old or the new file, never
 * a partial one, and the content is never readable by others, not even briefly. Run as root
 * (`sudo coffer-agent db add` on a service install), the file keeps its owner (a new one gets its
 * folder's), so the service user can still read it.
 */
export async function writeFileAtomic(file: string, data: string | Buffer): Promise<void> {
  const dir = path.dirname(file);
  await ensurePrivateDir(dir);
  const owner = await ownerToKeep(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(data);
    await fh.chmod(0o600); // in case a umask or an ACL widened it
    if (owner) await fh.chown(owner.uid, owner.gid);
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
