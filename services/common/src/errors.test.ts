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

  it('answers a failed call with a bare message and keeps what happened as the cause, for the log', () => {
    const internal = fromServiceError(serviceError(GrpcStatus.INTERNAL, 'Received RST_STREAM with code 2'));
    expect(internal).toMatchObject({ kind: 'INTERNAL', message: 'Internal error', httpStatus: 500 });
    expect(internal.cause).toEqual({ grpcCode: 'INTERNAL', grpcDetails: 'Received RST_STREAM with code 2' });
    const late = fromServiceError(serviceError(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded'));
    expect(late).toMatchObject({ kind: 'UNAVAILABLE', httpStatus: 503 });
    expect(late.message).toBe('A Coffer service is not answering right now. Please try again shortly.');
    expect(late.cause).toEqual({ grpcCode: 'DEADLINE_EXCEEDED', grpcDetails: 'Deadline exceeded' });
  });
});
