import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** The header (HTTP), metadata key (gRPC) and NATS message header that carry a request's id. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** What every log line and outgoing call of one piece of work shares. */
export interface RequestContext {
  requestId: string;
  /** The signed-in user, once the gateway knows who calls. */
  userId?: string;
  /** The service whose gRPC call this is, once its token is verified. */
  caller?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

// Ids come from clients and proxies: bounded and in a charset that cannot forge a log field or
// smuggle a header (no spaces, quotes, CR/LF). UUIDs, ULIDs and trace ids all fit.
const MAX_REQUEST_ID_LENGTH = 128;
const REQUEST_ID = /^[A-Za-z0-9._:@-]+$/;

/** The id when `value` is an acceptable request id, else undefined (the caller then makes one). */
export function parseRequestId(value: unknown): string | undefined {
  const v = Array.isArray(value) ? (value as unknown[])[0] : value;
  if (typeof v !== 'string' && !Buffer.isBuffer(v)) return undefined;
  const s = String(v).trim();
  if (s.length === 0 || s.length > MAX_REQUEST_ID_LENGTH || !REQUEST_ID.test(s)) return undefined;
  return s;
}

/** A fresh request id. */
export const newRequestId = (): string => randomUUID();

/** The incoming id when it is acceptable, otherwise a new one. */
export const requestIdFrom = (value: unknown): string => parseRequestId(value) ?? newRequestId();

/** Runs `fn` with `ctx` as the current request: logs and outgoing calls made from it carry its id. */
export function runInRequest<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

/** The request the current code runs for, if any. */
export const currentRequest = (): RequestContext | undefined => storage.getStore();

/** The current request's id, if any. */
export const currentRequestId = (): string | undefined => storage.getStore()?.requestId;
