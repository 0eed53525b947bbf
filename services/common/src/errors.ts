import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { ERROR_KINDS, type ErrorCode, type ErrorCodeOf, type ErrorKind } from '@coffer/contracts';

export type { ErrorCode, ErrorKind } from '@coffer/contracts';
export { ACCOUNT_INACTIVE_MESSAGE } from '@coffer/contracts';

/**
 * The gRPC status of each error kind. The kinds, the codes and their HTTP statuses are the
 * contract with the web app and live in @coffer/contracts; this adds the hop between services,
 * so a refusal means the same thing at every hop.
 */
const GRPC: Record<ErrorKind, GrpcStatus> = {
  BAD_INPUT: GrpcStatus.INVALID_ARGUMENT,
  UNAUTHENTICATED: GrpcStatus.UNAUTHENTICATED,
  FORBIDDEN: GrpcStatus.PERMISSION_DENIED,
  NOT_FOUND: GrpcStatus.NOT_FOUND,
  CONFLICT: GrpcStatus.ALREADY_EXISTS,
  LIMIT_REACHED: GrpcStatus.RESOURCE_EXHAUSTED,
  UNAVAILABLE: GrpcStatus.UNAVAILABLE,
  INTERNAL: GrpcStatus.INTERNAL,
};

export type ErrorDetails = Record<string, unknown>;

/** An error meant for the caller: its message is shown to users, so it uses product words. */
export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** Machine-readable code, e.g. ACCOUNT_BANNED; defaults to the kind. */
    readonly code: ErrorCode = kind,
    /** Extra fields for the answer body, e.g. { nextBackupAvailable }. */
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get httpStatus(): number {
    return ERROR_KINDS[this.kind];
  }

  get grpcStatus(): GrpcStatus {
    return GRPC[this.kind];
  }
}

export const badInput = (message: string, details?: ErrorDetails) =>
  new AppError('BAD_INPUT', message, 'BAD_INPUT', details);
export const unauthenticated = (message = 'Authentication required') =>
  new AppError('UNAUTHENTICATED', message);
export const forbidden = (
  message: string,
  code: ErrorCodeOf<'FORBIDDEN'> = 'FORBIDDEN',
  details?: ErrorDetails,
) => new AppError('FORBIDDEN', message, code, details);
export const notFound = (message: string) => new AppError('NOT_FOUND', message);
export const conflict = (message: string, code: ErrorCodeOf<'CONFLICT'> = 'CONFLICT') =>
  new AppError('CONFLICT', message, code);
export const limitReached = (
  message: string,
  code: ErrorCodeOf<'LIMIT_REACHED'> = 'LIMIT_REACHED',
  details?: ErrorDetails,
) => new AppError('LIMIT_REACHED', message, code, details);
export const unavailable = (message: string) => new AppError('UNAVAILABLE', message);

const DETAILS_KEY = 'coffer-error-bin';
/** Metadata of a call refused for its caller token (grpc/caller-check.ts). */
export const CALLER_REFUSED_KEY = 'coffer-caller-refused';

/**
 * Turns any error into a gRPC ServiceError; unknown errors become INTERNAL "Internal error". Every
 * error a Coffer service answers carries its kind in the metadata, so the caller can tell it from
 * a failure of the call itself (a dropped connection), which has none.
 */
export function toServiceError(err: unknown): Partial<ServiceError> {
  const appError = err instanceof AppError ? err : new AppError('INTERNAL', 'Internal error');
  const metadata = new Metadata();
  metadata.set(
    DETAILS_KEY,
    Buffer.from(JSON.stringify({ kind: appError.kind, code: appError.code, details: appError.details })),
  );
  return { code: appError.grpcStatus, details: appError.message, metadata };
}

/** Failures of the call itself, not answers of a service: a service was slow, down or cut off. */
const PASSING: readonly GrpcStatus[] = [
  GrpcStatus.DEADLINE_EXCEEDED,
  GrpcStatus.UNAVAILABLE,
  // grpc-js's own: the connection dropped under the call (e.g. its keepalive went unanswered).
  GrpcStatus.INTERNAL,
];

const FROM_GRPC: Partial<Record<GrpcStatus, ErrorKind>> = Object.fromEntries(
  Object.entries(GRPC).map(([kind, grpc]) => [grpc, kind as ErrorKind]),
);

/** Rebuilds the AppError a remote service raised, so the gateway answers with the same kind and text. */
export function fromServiceError(err: ServiceError): AppError {
  // A service refused the caller service itself (keys, call graph): a fault of the deployment,
  // answered as an internal error, never as the user's own UNAUTHENTICATED or FORBIDDEN.
  if (err.metadata?.get(CALLER_REFUSED_KEY)?.length) {
    return Object.assign(new AppError('INTERNAL', 'Internal error'), {
      cause: { grpcCode: GrpcStatus[err.code] ?? err.code, grpcDetails: err.details },
    });
  }
  const raw = err.metadata?.get(DETAILS_KEY)?.[0];
  if (raw) {
    try {
      const parsed = JSON.parse(Buffer.isBuffer(raw) ? raw.toString() : raw) as {
        kind: ErrorKind;
        code: ErrorCode;
        details: ErrorDetails;
      };
      return new AppError(parsed.kind, err.details, parsed.code, parsed.details);
    } catch {
      // fall through to the status-code mapping
    }
  }
  // What the call failed with stays on the error as its cause, for the log (never for the answer).
  const cause = { grpcCode: GrpcStatus[err.code] ?? err.code, grpcDetails: err.details };
  if (PASSING.includes(err.code)) {
    return Object.assign(
      unavailable('A Coffer service is not answering right now. Please try again shortly.'),
      {
        cause,
      },
    );
  }
  const kind = FROM_GRPC[err.code as GrpcStatus] ?? 'INTERNAL';
  if (kind !== 'INTERNAL') return new AppError(kind, err.details);
  return Object.assign(new AppError(kind, 'Internal error'), { cause });
}

/** HTTP status of an error kind (gateway's error middleware). */
export const httpStatusOf = (kind: ErrorKind) => ERROR_KINDS[kind];
