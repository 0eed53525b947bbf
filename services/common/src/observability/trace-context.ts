import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';

// Without a started SDK (tracing off) every call here is the API's no-op: nothing is added to
// headers, no span is made.

/** Header-like carriers: NATS `MsgHdrs` and the like. */
interface HeaderCarrier {
  get(key: string): string;
  set(key: string, value: string): void;
  keys(): string[];
}

const setter: TextMapSetter<HeaderCarrier> = { set: (c, k, v) => c.set(k, v) };
const getter: TextMapGetter<HeaderCarrier | undefined> = {
  get: (c, k) => c?.get(k) || undefined,
  keys: (c) => c?.keys() ?? [],
};

/** Adds the current trace context (traceparent) to outgoing message headers. */
export function injectTraceContext(headers: HeaderCarrier): void {
  propagation.inject(context.active(), headers, setter);
}

/** Runs a message's handler in a consumer span that continues the publisher's trace. */
export function withConsumerSpan<T>(
  name: string,
  headers: HeaderCarrier | undefined,
  attributes: Record<string, string | number>,
  fn: () => Promise<T>,
): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, headers, getter);
  const tracer = trace.getTracer('coffer-nats');
  return context.with(parent, () =>
    tracer.startActiveSpan(name, { kind: SpanKind.CONSUMER, attributes }, async (span) => {
      try {
        return await fn();
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        span.end();
      }
    }),
  );
}

/** The active span's trace id, for log lines, when one is being recorded. */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return undefined;
  return span.spanContext().traceId;
}
