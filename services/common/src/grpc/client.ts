import {
  credentials,
  InterceptingCall,
  Metadata,
  type Interceptor,
  type Client,
  type ClientUnaryCall,
  type CallOptions,
  type ServiceError,
} from '@grpc/grpc-js';
import { fromServiceError } from '../errors.js';
import { currentRequestId, REQUEST_ID_HEADER } from '../observability/context.js';
import { grpcClientHandling, grpcCodeName, grpcPathLabels } from '../observability/metrics.js';
import type { ServiceName } from './callers.js';
import { CALLER_TOKEN_HEADER, callerTokens } from './caller-token.js';
import type { ServiceIdentity } from './service-keys.js';

/**
 * gRPC metadata key of the signed-in user's own session token, passed on by the gateway to the
 * calls whose actor the callee must verify itself (auth's admin actions).
 */
export const USER_TOKEN_HEADER = 'x-coffer-user-token';

/** Per-call options of a promise client. */
export interface CallOpts {
  timeoutMs?: number;
  /** The user's session token, for a callee that checks who acts (USER_TOKEN_HEADER). */
  userToken?: string;
}

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
    ? (request: Req, opts?: CallOpts) => Promise<Res>
    : never;
};

const DEFAULT_DEADLINE_MS = 10_000;

/**
 * The channel's service config: calls spread over every address of the name (round_robin), and a
 * call answered UNAVAILABLE (no pod reachable for a moment: one restarting, a connection closed
 * under it by a scale-in or max_connection_age) is tried again up to 4 more times, 0.25 s to 2 s
 * apart (jittered), inside its deadline. Only UNAVAILABLE: it means the call was not taken up, or
 * its server went away; the handlers are written to be safe to repeat (events and writes are keyed
 * by ids). A streamed upload is retried only while its first 256 KiB are buffered (grpc-js).
 */
const CLIENT_SERVICE_CONFIG = {
  loadBalancingConfig: [{ round_robin: {} }],
  methodConfig: [
    {
      name: [{}],
      retryPolicy: {
        maxAttempts: 5,
        initialBackoff: '0.25s',
        maxBackoff: '2s',
        backoffMultiplier: 2,
        retryableStatusCodes: ['UNAVAILABLE'],
      },
    },
  ],
};

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

/**
 * Every call of a client, streaming ones included, carries the caller's token for `callee` (the
 * callee's requireCaller checks it). Without a private key the call goes out bare and is refused.
 */
export function signCalls(identity: ServiceIdentity, callee: ServiceName): Interceptor {
  const token = callerTokens(identity, callee);
  return (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        if (!token) return next(metadata, listener);
        token().then(
          (t) => {
            metadata.set(CALLER_TOKEN_HEADER, `Bearer ${t}`);
            next(metadata, listener);
          },
          // Signing with a loaded key does not fail; if it ever did, the callee's refusal says so.
          () => next(metadata, listener),
        );
      },
    });
}

/**
 * Creates a client of a generated service for `address` whose calls return promises, signed as
 * `caller.identity` for the service `caller.callee`.
 */
export function grpcClient<C extends Client>(
  Ctor: new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: object) => C,
  address: string,
  caller: { identity: ServiceIdentity; callee: ServiceName },
): PromiseClient<C> & { close(): void; raw: C } {
  const client = new Ctor(address, credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    // A name with several addresses (a headless Kubernetes Service) spreads calls over all of them
    // instead of pinning every call to the first pod's connection; UNAVAILABLE is retried.
    'grpc.service_config': JSON.stringify(CLIENT_SERVICE_CONFIG),
    // A restarted server is connected to again within a second or so, not after grpc-js's default
    // backoff (1 s growing to 2 minutes), so retries find it back.
    'grpc.initial_reconnect_backoff_ms': 250,
    'grpc.max_reconnect_backoff_ms': 5_000,
    interceptors: [observeCalls, signCalls(caller.identity, caller.callee)],
  });
  const wrapped: Record<string, unknown> = { close: () => client.close(), raw: client };
  const proto = Object.getPrototypeOf(client) as Record<string, unknown>;
  for (const name of Object.keys(proto)) {
    const method = proto[name];
    if (typeof method !== 'function' || name === 'constructor') continue;
    wrapped[name] = (request: unknown, opts?: CallOpts) =>
      new Promise((resolve, reject) => {
        const deadline = new Date(Date.now() + (opts?.timeoutMs ?? DEFAULT_DEADLINE_MS));
        const metadata = new Metadata();
        if (opts?.userToken) metadata.set(USER_TOKEN_HEADER, opts.userToken);
        (method as (...a: unknown[]) => unknown).call(
          client,
          request,
          metadata,
          { deadline },
          (err: ServiceError | null, res: unknown) => (err ? reject(fromServiceError(err)) : resolve(res)),
        );
      });
  }
  return wrapped as PromiseClient<C> & { close(): void; raw: C };
}
