/**
 * What went wrong in a blob backend, in words a backup's owner can act on, or null when the error
 * is not the backend's own (the client's stream broke, a bug). No path, key or endpoint goes in:
 * the text ends up in the backup's record, the audit log and the browser.
 */
export type BackendCause = { kind: 'disk-full' } | { kind: 'http'; status: number } | { kind: 'no-answer' };

const NO_SPACE = new Set(['ENOSPC', 'EDQUOT']);
/** Node's errors for a peer that is gone or silent (S3 down, a proxy in between dropped us). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
]);

export function backendCause(err: unknown): BackendCause | null {
  const e = err as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } } | null;
  if (!e || typeof e !== 'object') return null;
  if (typeof e.code === 'string' && NO_SPACE.has(e.code)) return { kind: 'disk-full' };
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number') return { kind: 'http', status };
  // The S3 client's connection and idle timeouts (S3_CONNECT_TIMEOUT_MS, S3_IDLE_TIMEOUT_MS).
  if (e.name === 'TimeoutError') return { kind: 'no-answer' };
  if (typeof e.code === 'string' && UNREACHABLE.has(e.code)) return { kind: 'no-answer' };
  return null;
}

/** "(S3 answered HTTP 500)" and the like, for the messages of the writing and reading paths. */
export function describeCause(cause: Exclude<BackendCause, { kind: 'disk-full' }>): string {
  return cause.kind === 'http' ? `S3 answered HTTP ${cause.status}` : 'S3 did not answer in time';
}
