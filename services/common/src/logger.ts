import pino, { type Logger } from 'pino';

export type { Logger };

// Field names whose values never reach a log line, wherever they appear in a logged object.
const SECRET_KEYS = [
  'password',
  'currentPassword',
  'newPassword',
  'token',
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

/** Structured JSON logger for one service; secrets are redacted by key and scrubbed from errors. */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: redactPaths, censor: '[redacted]' },
    serializers: {
      err: (err: Error) => {
        const s = pino.stdSerializers.err(err);
        return { ...s, message: scrubSecrets(s.message ?? ''), stack: s.stack && scrubSecrets(s.stack) };
      },
    },
  });
}
