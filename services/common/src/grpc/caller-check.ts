import { status as GrpcStatus, type MethodDefinition } from '@grpc/grpc-js';
import { AppError, CALLER_REFUSED_KEY, toServiceError } from '../errors.js';
import type { Logger } from '../logger.js';
import { currentRequest } from '../observability/context.js';
import { CALLER_TOKEN_HEADER, CallerRefusal, type CallerVerifier } from './caller-token.js';
import type { AnyHandler } from './server.js';

/**
 * The one check every gRPC method of a Coffer service passes before its handler runs (unary and
 * streaming alike): the caller's token verifies and names a caller this service accepts. A refusal
 * answers UNAUTHENTICATED or PERMISSION_DENIED and is logged with the caller and the method, never
 * the token.
 */
export function requireCaller(
  definition: MethodDefinition<unknown, unknown>,
  handler: AnyHandler,
  verify: CallerVerifier,
  log: Logger,
): AnyHandler {
  const method = definition.path.slice(definition.path.lastIndexOf('/') + 1);
  return (call, cb) => {
    verify(call.metadata.get(CALLER_TOKEN_HEADER), method).then(
      (caller) => {
        const ctx = currentRequest();
        if (ctx) ctx.caller = caller;
        handler(call, cb);
      },
      (err: unknown) => {
        const refusal =
          err instanceof CallerRefusal
            ? err
            : new CallerRefusal(new AppError('INTERNAL', 'Internal error'), undefined, String(err));
        const answer = toServiceError(refusal.error);
        // Marks the refusal as the services' own (their keys or call graph), not the user's: the
        // gateway answers it as a fault, never as "sign in again".
        answer.metadata!.set(CALLER_REFUSED_KEY, '1');
        log.warn(
          {
            caller: refusal.claimedCaller ?? null,
            method: definition.path,
            grpcCode: GrpcStatus[answer.code!],
            reason: refusal.reason,
          },
          'call refused',
        );
        // Methods that stream their answer end with an error event; the others answer through cb.
        if (definition.responseStream) call.emit('error', answer);
        else cb!(answer);
      },
    );
  };
}
