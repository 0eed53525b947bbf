import {
  credentials,
  InterceptingCall,
  type Interceptor,
  type Client,
  type ClientUnaryCall,
  type Metadata,
  type CallOptions,
  type ServiceError,
} from '@grpc/grpc-js';
import { fromServiceError } from '../errors.js';
import { currentRequestId, REQUEST_ID_HEADER } from '../observability/context.js';
import { grpcClientHandling, grpcCodeName, grpcPathLabels } from '../observability/metrics.js';

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** A generated grpc-js client seen as async functions with deadlines and mapped errors. */
export type PromiseClient<C> = {
  [K in keyof C as C[K] extends UnaryMethod<never, unknown> ? K : never]: C[K] extends UnaryMethod<
    infer Req,
    infer Res
  >
    ? (request: Req, opts?: { timeoutMs?: number }) => Promise<Res>
    : never;
};

const DEFAULT_DEADLINE_MS = 10_000;

/**
 * Every call of a client, the raw streaming ones included: carries the current request's id in
 * `x-request-id` metadata (so the callee logs it) and times the call by method and status code.
 */
export const observeCalls: Interceptor = (options, nextCall) => {
  // Read now, while the caller's context is current.
  const requestId = currentRequestId();
  const end = grpcClientHandling().startTimer(grpcPathLabels(options.method_definition.path));
  return new InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      if (requestId) metadata.set(REQUEST_ID_HEADER, requestId);
      next(metadata, {
        onReceiveStatus(status, nextStatus) {
          end({ grpc_code: grpcCodeName(status.code) });
          nextStatus(status);
        },
      });
    },
  });
};

/** Creates a client of a generated service for `address` whose calls return promises. */
export function grpcClient<C extends Client>(
  Ctor: new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: object) => C,
  address: string,
): PromiseClient<C> & { close(): void; raw: C } {
  const client = new Ctor(address, credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    // A name with several addresses (a headless Kubernetes Service) spreads calls over all of them
    // instead of pinning every call to the first pod's connection.
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
    interceptors: [observeCalls],
  });
  const wrapped: Record<string, unknown> = { close: () => client.close(), raw: client };
  const proto = Object.getPrototypeOf(client) as Record<string, unknown>;
  for (const name of Object.keys(proto)) {
    const method = proto[name];
    if (typeof method !== 'function' || name === 'constructor') continue;
    wrapped[name] = (request: unknown, opts?: { timeoutMs?: number }) =>
      new Promise((resolve, reject) => {
        const deadline = new Date(Date.now() + (opts?.timeoutMs ?? DEFAULT_DEADLINE_MS));
        (method as (...a: unknown[]) => unknown).call(
          client,
          request,
          { deadline },
          (err: ServiceError | null, res: unknown) => (err ? reject(fromServiceError(err)) : resolve(res)),
        );
      });
  }
  return wrapped as PromiseClient<C> & { close(): void; raw: C };
}
