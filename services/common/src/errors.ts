import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';

/**
 * The error kinds every service and the gateway share. Each maps to one HTTP and one gRPC status
 * in the table below, so a refusal means the same thing at every hop.
 */
export type ErrorKind =
  | 'BAD_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'LIMIT_REACHED'
  | 'UNAVAILABLE'
  | 'INTERNAL';

const TABLE: Record<ErrorKind, { http: number; grpc: GrpcStatus }> = {
  BAD_INPUT: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  UNAUTHENTICATED: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED },
  FORBIDDEN: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED },
  NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  CONFLICT: { http: 409, grpc: GrpcStatus.ALREADY_EXISTS },
  LIMIT_REACHED: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  UNAVAILABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  INTERNAL: { http: 500, grpc: GrpcStatus.INTERNAL },
};

export type ErrorDetails = Record<string, unknown>;

/** An error meant for the caller: its message is shown to users, so it uses product words. */
export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** Machine-readable code, e.g. ACCOUNT_BANNED; defaults to the kind. */
    readonly code: string = kind,
    /** Extra fields for the answer body, e.g. { nextBackupAvailable }. */
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get httpStatus(): number {
    return TABLE[this.kind].http;
  }

  get grpcStatus(): GrpcStatus {
    return TABLE[this.kind].grpc;
  }
}

export const badInput = (message: string, details?: ErrorDetails) =>
  new AppError('BAD_INPUT', message, 'BAD_INPUT', details);
export const unauthenticated = (message = 'Authentication required') =>
  new AppError('UNAUTHENTICATED', message);
export const forbidden = (message: string, code = 'FORBIDDEN', details?: ErrorDetails) =>
  new AppError('FORBIDDEN', message, code, details);
export const notFound = (message: string) => new AppError('NOT_FOUND', message);
export const conflict = (message: string) => new AppError('CONFLICT', message);
export const limitReached = (message: string, code = 'LIMIT_REACHED', details?: ErrorDetails) =>
  new AppError('LIMIT_REACHED', message, code, details);
export const unavailable = (message: string) => new AppError('UNAVAILABLE', message);

const DETAILS_KEY = 'coffer-error-bin';

/** Turns any error into a gRPC ServiceError; unknown errors become a bare INTERNAL. */
export function toServiceError(err: unknown): Partial<ServiceError> {
  if (err instanceof AppError) {
    const metadata = new Metadata();
    metadata.set(
      DETAILS_KEY,
      Buffer.from(JSON.stringify({ kind: err.kind, code: err.code, details: err.details })),
    );
    return { code: err.grpcStatus, details: err.message, metadata };
  }
  return { code: GrpcStatus.INTERNAL, details: 'Internal error' };
}

const FROM_GRPC: Partial<Record<GrpcStatus, ErrorKind>> = Object.fromEntries(
  Object.entries(TABLE).map(([kind, v]) => [v.grpc, kind as ErrorKind]),
);

/** Rebuilds the AppError a remote service raised, so the gateway answers with the same kind and text. */
export function fromServiceError(err: ServiceError): AppError {
  const raw = err.metadata?.get(DETAILS_KEY)?.[0];
  if (raw) {
    try {
      const parsed = JSON.parse(Buffer.isBuffer(raw) ? raw.toString() : raw) as {
        kind: ErrorKind;
        code: string;
        details: ErrorDetails;
      };
      return new AppError(parsed.kind, err.details, parsed.code, parsed.details);
    } catch {
      // fall through to the status-code mapping
    }
  }
  if (err.code === GrpcStatus.DEADLINE_EXCEEDED || err.code === GrpcStatus.UNAVAILABLE) {
    return unavailable('A Coffer service is not answering right now. Please try again shortly.');
  }
  const kind = FROM_GRPC[err.code as GrpcStatus] ?? 'INTERNAL';
  return new AppError(kind, kind === 'INTERNAL' ? 'Internal error' : err.details);
}

/** HTTP status of an error kind (gateway's error middleware). */
export const httpStatusOf = (kind: ErrorKind) => TABLE[kind].http;
