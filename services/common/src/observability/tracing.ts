import path from 'node:path';

/**
 * OpenTelemetry tracing, off unless configured: an OTLP endpoint in the standard variables
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) switches it on;
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` keeps it off. Everything else (protocol,
 * headers, sampler, resource attributes, service name) is the SDK's own `OTEL_*` configuration.
 *
 * `@coffer/common` loads this module before anything else, so the instrumentations are in place
 * before http, express, grpc-js, mongodb and redis are first required; the SDK itself is only
 * required when tracing is on, so a service without it pays nothing at start.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return false;
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((s) => s.trim().toLowerCase());
  return !exporters.includes('none');
}

/** `OTEL_SERVICE_NAME`, else the service's folder (services/<name>/dist/main.js). */
export function tracingServiceName(env: NodeJS.ProcessEnv = process.env, script = process.argv[1]): string {
  if (env.OTEL_SERVICE_NAME) return env.OTEL_SERVICE_NAME;
  if (script && /[\\/]dist[\\/]main\.js$/.test(script)) {
    return `coffer-${path.basename(path.dirname(path.dirname(script)))}`;
  }
  return 'coffer';
}

/**
 * Query strings never reach a span: they can hold tokens (a reset link, a socket's auth) and
 * users' search text. The instrumentation sets its URL attributes when the span starts; this runs
 * right after and cuts the query off (old and stable semantic conventions alike).
 */
function dropQueryStrings(span: { setAttribute(key: string, value: string): unknown }): void {
  const attributes = (span as unknown as { attributes?: Record<string, unknown> }).attributes ?? {};
  for (const key of ['http.target', 'http.url', 'url.full']) {
    const value = attributes[key];
    if (typeof value === 'string' && value.includes('?'))
      span.setAttribute(key, value.slice(0, value.indexOf('?')));
  }
  if (typeof attributes['url.query'] === 'string') span.setAttribute('url.query', '[redacted]');
}

// Probes and scrapes every few seconds would drown the traces that matter.
const OPS_PATHS = new Set(['/livez', '/readyz', '/metrics']);

let sdk: { shutdown(): Promise<void> } | undefined;

/** Whether this process exports traces. */
export const tracingEnabled = (): boolean => sdk !== undefined;

/** Starts the SDK when configured; a no-op otherwise or when already started. */
export function startTracing(env: NodeJS.ProcessEnv = process.env): boolean {
  if (sdk || !tracingRequested(env)) return sdk !== undefined;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on, and
     before the instrumented modules; a static import would cost every service its start-up. */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { GrpcInstrumentation } =
    require('@opentelemetry/instrumentation-grpc') as typeof import('@opentelemetry/instrumentation-grpc');
  const { MongoDBInstrumentation } =
    require('@opentelemetry/instrumentation-mongodb') as typeof import('@opentelemetry/instrumentation-mongodb');
  const { RedisInstrumentation } =
    require('@opentelemetry/instrumentation-redis') as typeof import('@opentelemetry/instrumentation-redis');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const started = new NodeSDK({
    serviceName: tracingServiceName(env),
    // Traces only: metrics are Prometheus' (/metrics) and logs are the JSON lines on stdout.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => OPS_PATHS.has((req.url ?? '').split('?')[0] ?? ''),
        requestHook: dropQueryStrings,
      }),
      new ExpressInstrumentation(),
      new GrpcInstrumentation(),
      // Statements keep their shape with the values replaced (enhancedDatabaseReporting stays off).
      new MongoDBInstrumentation(),
      // Command names only: arguments hold session and token material.
      new RedisInstrumentation({ dbStatementSerializer: (cmd) => cmd }),
    ],
  });
  started.start();
  sdk = started;
  return true;
}

/** Flushes and stops the exporter (the last step of a service's shutdown). */
export async function stopTracing(): Promise<void> {
  const s = sdk;
  sdk = undefined;
  await s?.shutdown().catch(() => undefined);
}
