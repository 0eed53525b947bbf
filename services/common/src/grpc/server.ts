import {
  Server,
  ServerCredentials,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import { health } from '@coffer/proto';
import { AppError, toServiceError } from '../errors.js';
import type { Logger } from '../logger.js';

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
      fn(call.request, call).then(
        (res) => cb(null, res),
        (err: unknown) => {
          if (!(err instanceof AppError)) log.error({ err, rpc: name }, 'rpc failed');
          cb(toServiceError(err));
        },
      );
    };
  }
  return impl as Impl & UntypedServiceImplementation;
}

export interface GrpcServer {
  port: number;
  setServing(serving: boolean): void;
  stop(): Promise<void>;
}

/** Starts a gRPC server with the standard health service next to the given services. */
export async function startGrpcServer(
  address: string,
  services: Array<{ definition: ServiceDefinition; impl: UntypedServiceImplementation }>,
): Promise<GrpcServer> {
  const server = new Server({ 'grpc.max_receive_message_length': 4 * 1024 * 1024 });
  let serving = true;
  for (const s of services) server.addService(s.definition, s.impl);
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
