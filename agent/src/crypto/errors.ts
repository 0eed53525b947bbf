/** Why a Coffer file could not be read; `code` is stable for callers, `message` is for people. */
export type CofferFormatErrorCode =
  | 'NOT_COFFER'
  | 'UNSUPPORTED_VERSION'
  | 'BAD_HEADER'
  | 'WRONG_KEY'
  | 'CORRUPT_CHUNK'
  | 'TRUNCATED'
  | 'TRAILING_DATA'
  | 'BAD_PAYLOAD'
  /** Version 2: the sealed record is malformed, or the archive does not match it (a writer bug). */
  | 'BAD_RECORD';

export interface CofferFormatErrorDetails {
  /** Index of the chunk that failed (0-based). */
  chunk?: number;
  /** Byte offset of that chunk in the file. */
  offset?: number;
  fileFingerprint?: string;
  keyFingerprint?: string;
}

export class CofferFormatError extends Error {
  override readonly name = 'CofferFormatError';
  constructor(
    readonly code: CofferFormatErrorCode,
    message: string,
    readonly details: CofferFormatErrorDetails = {},
  ) {
    super(message);
  }
}

export function isCofferFormatError(e: unknown): e is CofferFormatError {
  return e instanceof CofferFormatError;
}

/**
 * Authenticated bytes that are not whole zstd: a writer bug, never tampering (only the key's
 * holder can seal a chunk). `why` is the decoder's or the frame parser's reason.
 */
export function badPayload(why: string): CofferFormatError {
  return new CofferFormatError(
    'BAD_PAYLOAD',
    `The backup decrypted correctly but its zstd data is invalid: ${why.replace(/\.$/, '')}.`,
  );
}
