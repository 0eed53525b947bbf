// Turning RTK Query failures into the texts the spec asks for.
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { SerializedError } from '@reduxjs/toolkit';

function isFetchError(err: unknown): err is FetchBaseQueryError {
  return typeof err === 'object' && err !== null && 'status' in err;
}

/** The server's `message` from an error answer, if any. */
export function serverMessage(err: unknown): string | undefined {
  if (!isFetchError(err)) return undefined;
  const data = err.data as { message?: unknown } | undefined;
  return data && typeof data.message === 'string' && data.message ? data.message : undefined;
}

/** True when the server answered (any HTTP status), false for network or parsing failures of our own. */
export function isHttpError(err: unknown): boolean {
  if (!isFetchError(err)) return false;
  if (typeof err.status === 'number') return true;
  return err.status === 'PARSING_ERROR' && typeof err.originalStatus === 'number';
}

/**
 * The message to show for a failed call: the server's message when it sent one; `httpFallback`
 * when it answered without one; `otherFallback` when the call never got an answer.
 */
export function apiErrorMessage(
  err: unknown | FetchBaseQueryError | SerializedError,
  httpFallback: string,
  otherFallback: string,
): string {
  const msg = serverMessage(err);
  if (msg) return msg;
  return isHttpError(err) ? httpFallback : otherFallback;
}

export function httpStatus(err: unknown): number | undefined {
  if (!isFetchError(err)) return undefined;
  if (typeof err.status === 'number') return err.status;
  return 'originalStatus' in err && typeof err.originalStatus === 'number' ? err.originalStatus : undefined;
}
