// Structured log lines for the daemon: one JSON object per line on stdout, so journald, Docker or
// a log shipper can parse them. Every line passes through the redactor, so a secret that slipped
// into an error message (a connection string, the API key, the master key) is masked.
import type { Writable } from 'node:stream';
import { redact } from '../pipeline/redact.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';
export type Fields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
}

/** Errors become {message, code}; stacks stay out of the log unless COFFER_DEBUG is set. */
function plain(value: unknown, debug: boolean): unknown {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return {
      message: value.message,
      ...(code !== undefined ? { code } : {}),
      ...(debug && value.stack ? { stack: value.stack } : {}),
    };
  }
  return value;
}

export function createLogger(opts: {
  out: Writable;
  /** Strings that must never appear in a log line (longest are masked first). */
  secrets: () => readonly string[];
  debug?: boolean;
  now?: () => Date;
}): Logger {
  const now = opts.now ?? (() => new Date());
  const write = (level: Level, msg: string, fields: Fields = {}) => {
    if (level === 'debug' && !opts.debug) return;
    const entry: Fields = { time: now().toISOString(), level, msg };
    for (const [k, v] of Object.entries(fields)) entry[k] = plain(v, Boolean(opts.debug));
    let line: string;
    try {
      line = JSON.stringify(entry);
    } catch {
      line = JSON.stringify({ time: entry.time, level, msg });
    }
    opts.out.write(redact(line, opts.secrets()) + '\n');
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
