import pino, { type Logger } from 'pino';
import { currentRequest } from './observability/context.js';
import { activeTraceId } from './observability/trace-context.js';

export type { Logger };

// Field names whose values never reach a log line, wherever they appear in a logged object.
const SECRET_KEYS = [
  'password',
  'currentPassword',
  'newPassword',
  'token',
  'accessToken',
  'refreshToken',
  'resetToken',
  'resetUrl',
  'apiKey',
  'authorization',
  'cookie',
  'uri',
  'connectionString',
  'masterKey',
  'key',
  'secret',
];
const redactPaths = SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`, `req.headers.${k}`]);

// Connection strings can hide inside error messages from drivers; scrub their credentials.
const URI_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;

/** Removes credentials embedded in URLs (mongodb://user:pass@host → mongodb://***@host). */
export function scrubSecrets(text: string): string {
  return text.replace(URI_CREDENTIALS, '$1***@');
}

/**
 * The current request's id (and user, at the gateway) and trace on every line, child loggers
 * included: handlers run inside the request's context (observability/context.ts), so domain code
 * logs as it always did.
 */
function requestFields(): Record<string, string> {
  const ctx = currentRequest();
  const traceId = activeTraceId();
  if (!ctx && !traceId) return {};
  const fields: Record<string, string> = {};
  if (ctx) fields.requestId = ctx.requestId;
  if (ctx?.userId) fields.userId = ctx.userId;
  if (ctx?.caller) fields.caller = ctx.caller;
  if (traceId) fields.traceId = traceId;
  return fields;
}

/** Structured JSON logger for one service; secrets are redacted by key and scrubbed from errors. */
export function createLogger(
  service: string,
  level = process.env.LOG_LEVEL ?? 'info',
  /** Where lines go (stdout unless given; tests read them back). */
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: requestFields,
    redact: { paths: redactPaths, censor: '[redacted]' },
    serializers: {
      err: (err: Error) => {
        const s = pino.stdSerializers.err(err);
        return { ...s, message: scrubSecrets(s.message ?? ''), stack: s.stack && scrubSecrets(s.stack) };
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
