export type PipelineErrorCode =
  /** mongodump / mongorestore not installed or not on PATH. */
  | 'TOOL_MISSING'
  /** The database server could not be reached or refused the credentials. */
  | 'DB_UNREACHABLE'
  /** mongodump / mongorestore exited with an error. */
  | 'TOOL_FAILED'
  /** The decrypted backup is not a usable mongodump archive. */
  | 'BAD_ARCHIVE'
  /** The backup was dumped from another database than the one being restored (restore.ts). */
  | 'WRONG_DATABASE'
  /** The agent's restore policy refuses this restore (restore-policy.ts); nothing was changed. */
  | 'REFUSED'
  /** A database name MongoDB would refuse. */
  | 'INVALID_NAME'
  /** Cancelled through the AbortSignal. */
  | 'ABORTED';

/** A backup or restore failure with a message meant for the user (secrets already redacted). */
export class PipelineError extends Error {
  override readonly name = 'PipelineError';
  constructor(
    readonly code: PipelineErrorCode,
    message: string,
    /** Last lines the tool printed on stderr, redacted. */
    readonly toolOutput: string[] = [],
  ) {
    super(message);
  }
}
