// The error codes an answer carries (`{ message, code, ...details }`) and the HTTP status of each.
// Services raise them (AppError in @coffer/common, which adds the gRPC mapping); the web app
// branches on the same codes. Adding a code is one row here.

/** The kinds of refusal, each with its HTTP status. */
export const ERROR_KINDS = {
  BAD_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  LIMIT_REACHED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;
export type ErrorKind = keyof typeof ERROR_KINDS;

/** Every machine code, with its kind. A kind is also a code (the default when nothing finer fits). */
export const ERROR_CODES = {
  BAD_INPUT: 'BAD_INPUT',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  LIMIT_REACHED: 'LIMIT_REACHED',
  INTERNAL: 'INTERNAL',
  UNAVAILABLE: 'UNAVAILABLE',
  /** The account is banned; the body carries isBanned, banReason, bannedAt (web: /banned). */
  ACCOUNT_BANNED: 'FORBIDDEN',
  /** An admin set the account inactive: no session or agent of it is served until reactivated. */
  ACCOUNT_INACTIVE: 'FORBIDDEN',
  /** The action needs the second factor again: a current code (X-Coffer-2FA) or a step-up token. */
  STEP_UP_REQUIRED: 'FORBIDDEN',
  /** Admins must use two-factor sign-in and this one has not set it up: enrol first (Profile → Security). */
  TWO_FACTOR_ENROLMENT_REQUIRED: 'FORBIDDEN',
  /** A two-factor or recovery code that is wrong, expired or already used. */
  TWO_FACTOR_CODE_INVALID: 'BAD_INPUT',
  /** A paid plan was chosen where only free plans can be. */
  PAYMENT_REQUIRED: 'FORBIDDEN',
  /** A paid plan was chosen on a server without a payment provider configured. */
  BILLING_NOT_CONFIGURED: 'FORBIDDEN',
  /** The chosen backup frequency is more frequent than the plan allows. */
  PLAN_FREQUENCY_LIMIT: 'FORBIDDEN',
  /** The chosen retention is longer than the plan allows. */
  PLAN_RETENTION_LIMIT: 'FORBIDDEN',
  /** A GFS retention count is larger than the plan allows; the body carries gfsLimits. */
  PLAN_GFS_LIMIT: 'FORBIDDEN',
  /** The database is beyond the plan's database limit or switched off. */
  DATABASE_INACTIVE: 'FORBIDDEN',
  /** Too many requests of one kind (sign-in attempts, …); the body carries retryAfter. */
  RATE_LIMITED: 'LIMIT_REACHED',
  /** A backup sooner than the plan's interval; the body carries nextBackupAvailable. */
  BACKUP_RATE_LIMITED: 'LIMIT_REACHED',
  /** Switching on one more database would pass the plan's database limit. */
  DATABASE_LIMIT_REACHED: 'LIMIT_REACHED',
  /** The plan's storage is full. */
  STORAGE_LIMIT_EXCEEDED: 'LIMIT_REACHED',
  /** No connected agent can run the job. */
  AGENT_UNAVAILABLE: 'UNAVAILABLE',
  /** The agent's identity was retired by 'Reset Connection'; it must register as a new instance. */
  AGENT_RESET: 'CONFLICT',
  /** The backup is under the account's retention lock; the body carries lockedUntil (ISO). */
  BACKUP_LOCKED: 'CONFLICT',
} as const satisfies Record<string, ErrorKind>;
export type ErrorCode = keyof typeof ERROR_CODES;

/** The message of ACCOUNT_INACTIVE, the same at sign-in, on every call and to the account's agents. */
export const ACCOUNT_INACTIVE_MESSAGE = 'This account is inactive. Contact support to have it reactivated.';

/** The codes of one kind, e.g. ErrorCodeOf<'FORBIDDEN'> = 'FORBIDDEN' | 'ACCOUNT_BANNED' | … */
export type ErrorCodeOf<K extends ErrorKind> = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C] extends K ? C : never;
}[ErrorCode];

/** The HTTP status an answer with this code has. */
export const httpStatusOfCode = (code: ErrorCode): number => ERROR_KINDS[ERROR_CODES[code]];

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);

/** The body of every error answer of the REST API; some codes add fields (see above). */
export interface ErrorBody {
  message: string;
  code: ErrorCode;
  [detail: string]: unknown;
}
