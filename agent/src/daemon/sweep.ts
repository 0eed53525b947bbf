// mongodump and mongorestore read the connection string from a private tool config file
// (`<tmp>/coffer-agent-XXXXXX/tool-config.yaml`, 0600 in a 0700 folder) that the pipeline removes
// when the tool has finished. A killed agent (SIGKILL, power loss) cannot remove it; the daemon
// sweeps such leftovers when it starts and every hour, so a connection string does not linger.
import { readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from './log.js';

const TOOL_DIR = /^coffer-agent-[A-Za-z0-9]{6}$/;
const TOOL_FILE = 'tool-config.yaml';
/** The tools read their config as they start: a file this old is no longer needed by anyone. */
export const STALE_AFTER_MS = 10 * 60_000;

/** Removes stale tool-config folders of this user under `dir`; resolves with how many went. */
export async function sweepToolConfigs(
  dir = os.tmpdir(),
  opts: { olderThanMs?: number; now?: number } = {},
): Promise<number> {
  const olderThan = opts.olderThanMs ?? STALE_AFTER_MS;
  const now = opts.now ?? Date.now();
  const uid = process.getuid?.();
  let removed = 0;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!TOOL_DIR.test(name)) continue;
    const full = path.join(dir, name);
    try {
      const s = await stat(full);
      if (!s.isDirectory() || (uid !== undefined && s.uid !== uid)) continue;
      if (now - s.mtimeMs < olderThan) continue;
      const inside = await readdir(full);
      if (!inside.every((n) => n === TOOL_FILE)) continue; // not ours to judge
      await rm(full, { recursive: true, force: true });
      removed++;
    } catch {
      // gone meanwhile or not readable: leave it
    }
  }
  return removed;
}

/** Sweeps now and every `everyMs` (an hour), logging what went; returns the function that stops it. */
export function startSweeping(log: Pick<Logger, 'info'>, everyMs = 3_600_000): () => void {
  const sweep = () =>
    sweepToolConfigs().then(
      (n) =>
        n && log.info('removed tool config files left by an interrupted backup or restore', { count: n }),
      () => undefined,
    );
  void sweep();
  const timer = setInterval(() => void sweep(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
