// Benchmark-only switches (bench/README.md, "Coffer's ceiling"): they take the database out of a
// backup or a restore so the benchmark measures the agent → gateway → storage path alone. Both
// are environment variables with BENCH in their name, read by nothing else, documented nowhere a
// customer looks, and the agent logs a warning line whenever one of them changes a job.

/** Absolute path of a recorded `mongodump --archive` output to stream instead of running mongodump. */
export const REPLAY_ARCHIVE_ENV = 'COFFER_BENCH_REPLAY_ARCHIVE';
/** "1": a restore is verified, decrypted and decompressed into a discarding sink, not mongorestore. */
export const DISCARD_RESTORE_ENV = 'COFFER_BENCH_DISCARD_RESTORE';

export function replayArchive(): string | undefined {
  const file = process.env[REPLAY_ARCHIVE_ENV];
  if (!file) return undefined;
  if (!file.startsWith('/')) throw new Error(`${REPLAY_ARCHIVE_ENV} must be an absolute path`);
  console.warn(`[bench] ${REPLAY_ARCHIVE_ENV} is set: replaying ${file} instead of running mongodump`);
  return file;
}

export function discardRestore(): boolean {
  if (process.env[DISCARD_RESTORE_ENV] !== '1') return false;
  console.warn(
    `[bench] ${DISCARD_RESTORE_ENV} is set: the restore goes to a discarding sink, not mongorestore`,
  );
  return true;
}
