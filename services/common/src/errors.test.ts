import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { fromServiceError, notFound, toServiceError } from './errors.js';

const serviceError = (code: GrpcStatus, details: string, metadata = new Metadata()) =>
  Object.assign(new Error(details), { code, details, metadata }) as ServiceError;

describe('errors across a gRPC call', () => {
  it('rebuilds a remote AppError with its kind, text and code, and no cause', () => {
    const sent = toServiceError(notFound('Backup not found'));
    const back = fromServiceError(serviceError(sent.code!, sent.details!, sent.metadata));
    expect(back).toMatchObject({ kind: 'NOT_FOUND', message: 'Backup not found', code: 'NOT_FOUND' });
    expect(back.cause).toBeUndefined();
  });

  it('keeps a service’s unexpected error a 500 with nothing of it in the answer', () => {
    const sent = toServiceError(new Error('E11000 duplicate key: mongodb://user:secret@db/x'));
    expect(sent).toMatchObject({ code: GrpcStatus.INTERNAL, details: 'Internal error' });
    const back = fromServiceError(serviceError(sent.code!, sent.details!, sent.metadata));
    expect(back).toMatchObject({ kind: 'INTERNAL', message: 'Internal error', httpStatus: 500 });
  });

  it('answers a failure of the call itself with 503 and keeps what happened as the cause, for the log', () => {
    // What grpc-js reports when the connection drops under a call (its keepalive went unanswered).
    const dropped = 'Received RST_STREAM with code 2 triggered by internal client error: Session closed';
    const cut = fromServiceError(serviceError(GrpcStatus.INTERNAL, dropped));
    expect(cut).toMatchObject({ kind: 'UNAVAILABLE', httpStatus: 503 });
    expect(cut.cause).toEqual({ grpcCode: 'INTERNAL', grpcDetails: dropped });
    const late = fromServiceError(serviceError(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded'));
    expect(late).toMatchObject({ kind: 'UNAVAILABLE', httpStatus: 503 });
    expect(late.message).toBe('A Coffer service is not answering right now. Please try again shortly.');
    expect(late.cause).toEqual({ grpcCode: 'DEADLINE_EXCEEDED', grpcDetails: 'Deadline exceeded' });
  });
});
