import {
  Server,
  ServerCredentials,
  status as GrpcStatus,
  type MethodDefinition,
  type ServiceDefinition,
  type ServerErrorResponse,
  type StatusObject,
  type UntypedServiceImplementation,
  type sendUnaryData,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import { health } from '@coffer/proto';
import { AppError, toServiceError } from '../errors.js';
import type { Logger } from '../logger.js';
import { REQUEST_ID_HEADER, requestIdFrom, runInRequest } from '../observability/context.js';
import { grpcCodeName, grpcPathLabels, grpcServerHandling } from '../observability/metrics.js';
import { ALLOWED_CALLERS } from './callers.js';
import { requireCaller } from './caller-check.js';
import { callerVerifier } from './caller-token.js';
import type { ServiceIdentity } from './service-keys.js';

/** Handlers written as async functions: return the answer or throw (an AppError for the caller). */
export type AsyncUnaryHandlers<Impl> = {
  // `as` drops the index signature grpc-js adds to every generated server interface.
  [K in keyof Impl as string extends K ? never : K]: Impl[K] extends (
    call: ServerUnaryCall<infer Req, infer Res>,
    cb: sendUnaryData<infer Res2>,
  ) => void
    ? (req: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res2>
    : never;
};

/** Adapts async handlers to grpc-js callbacks, mapping thrown errors through the one error table. */
export function unaryHandlers<Impl>(
  log: Logger,
  handlers: AsyncUnaryHandlers<Impl>,
): Impl & UntypedServiceImplementation {
  const impl: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(
    handlers as Record<string, (req: unknown, call: unknown) => Promise<unknown>>,
  )) {
    impl[name] = (call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) => {
      const started = performance.now();
      // One line per call, in the caller's request (startGrpcServer set it): the service side of
      // the gateway's access log. Request and answer stay out: they hold passwords and tokens.
      const done = (code: number) =>
        log.info(
          {
            rpc: name,
            grpcCode: grpcCodeName(code),
            durationMs: Math.round((performance.now() - started) * 10) / 10,
          },
          'rpc',
        );
      fn(call.request, call).then(
        (res) => {
          done(GrpcStatus.OK);
          cb(null, res);
        },
        (err: unknown) => {
          if (!(err instanceof AppError)) log.error({ err, rpc: name }, 'rpc failed');
          const serviceError = toServiceError(err);
          done(serviceError.code ?? GrpcStatus.UNKNOWN);
          cb(serviceError);
        },
      );
    };
  }
  return impl as Impl & UntypedServiceImplementation;
}

export type AnyHandler = (call: ObservedCall, cb?: AnyCallback) => void;
export type AnyCallback = (
  err: Partial<StatusObject> | ServerErrorResponse | null,
  ...rest: unknown[]
) => void;
export interface ObservedCall {
  metadata: { get(key: string): unknown[] };
  once(event: string, listener: (arg?: unknown) => void): unknown;
  emit(event: string, arg?: unknown): boolean;
}

/**
 * Runs a method's handler inside the caller's request (its `x-request-id`, or a new one) so every
 * line it logs and every call or event it makes carries that id, and times it by status code.
 */
export function observeHandler(
  definition: MethodDefinition<unknown, unknown>,
  handler: AnyHandler,
): AnyHandler {
  const labels = grpcPathLabels(definition.path);
  return (call, cb) => {
    const end = grpcServerHandling().startTimer(labels);
    let ended = false;
    const finish = (code: number | undefined) => {
      if (ended) return;
      ended = true;
      end({ grpc_code: grpcCodeName(code) });
    };
    const ctx = { requestId: requestIdFrom(call.metadata.get(REQUEST_ID_HEADER)) };
    // A caller that gives up (a cancelled upload) gets no answer: counted as CANCELLED.
    call.once('cancelled', () => finish(GrpcStatus.CANCELLED));
    if (!definition.responseStream) {
      // Unary and client-streaming methods answer once, through the callback.
      runInRequest(ctx, () =>
        handler(call, (err, ...rest) => {
          finish(err ? (err.code ?? GrpcStatus.UNKNOWN) : GrpcStatus.OK);
          cb!(err, ...rest);
        }),
      );
      return;
    }
    // Streaming answers end with the stream: finished or failed (an emitted error).
    call.once('finish', () => finish(GrpcStatus.OK));
    call.once('error', (err) => finish((err as { code?: number } | undefined)?.code ?? GrpcStatus.UNKNOWN));
    runInRequest(ctx, () => handler(call));
  };
}

export interface GrpcServer {
  port: number;
  setServing(serving: boolean): void;
  stop(): Promise<void>;
}

/**
 * Starts a gRPC server with the standard health service next to the given services. Every method
 * of those services takes calls only from the services `identity` accepts (requireCaller); the
 * health service stays open to probes.
 */
export async function startGrpcServer(
  address: string,
  services: Array<{ definition: ServiceDefinition; impl: UntypedServiceImplementation }>,
  access: { identity: ServiceIdentity; log: Logger },
): Promise<GrpcServer> {
  const verify = callerVerifier({
    audience: access.identity.name,
    publicKeys: access.identity.publicKeys,
    allowed: ALLOWED_CALLERS[access.identity.name],
  });
  const server = new Server({
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    // Clients keep one connection per pod for good: without an age limit, pods an autoscaler adds
    // get no calls from the clients that were there before. After 5 minutes (grpc-js adds ±10%
    // jitter) the server sends GOAWAY; clients take new calls to a fresh connection (picking up
    // new pods through DNS) while calls in flight, uploads included, finish (no grace limit).
    'grpc.max_connection_age_ms': 5 * 60_000,
  });
  let serving = true;
  for (const s of services) {
    const impl: UntypedServiceImplementation = {};
    for (const [name, fn] of Object.entries(s.impl)) {
      const definition = s.definition[name];
      // grpc-js types each call kind apart; the wrapper treats them alike (see observeHandler).
      impl[name] = definition
        ? (observeHandler(
            definition,
            requireCaller(definition, fn as unknown as AnyHandler, verify, access.log),
          ) as unknown as typeof fn)
        : fn;
    }
    server.addService(s.definition, impl);
  }
  const healthImpl: health.HealthServer = {
    check: (_call, cb) =>
      cb(null, {
        status: serving
          ? health.HealthCheckResponse_ServingStatus.SERVING
          : health.HealthCheckResponse_ServingStatus.NOT_SERVING,
      }),
  };
  server.addService(health.HealthService, healthImpl);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    port,
    setServing: (s) => {
      serving = s;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), 5000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
