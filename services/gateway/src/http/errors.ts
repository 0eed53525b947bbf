import type { ErrorRequestHandler, RequestHandler } from 'express';
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '@coffer/contracts';
import { AppError, type Logger } from '@coffer/common';
import { routeLabel } from './access-log.js';

const errorCode = z
  .enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]])
  .meta({ id: 'ErrorCode', description: 'the error kind (e.g. NOT_FOUND) or a more precise code' });
/** A more precise `code` of an error body, checked against the table. */
export const codeOf = <C extends ErrorCode>(code: C) => z.literal(code);

/**
 * What every refusal answers: a message for people, a stable code for programs, and the details of
 * that refusal (e.g. `field` for bad input). The status is the kind's, from the error table in
 * @coffer/contracts; `code` is the kind unless the refusal names a more precise one.
 */
export const errorBody = z
  .object({
    message: z.string(),
    code: errorCode,
    field: z.string().optional().meta({ description: 'bad input: the parameter or body field at fault' }),
  })
  .catchall(z.unknown())
  .meta({ id: 'ApiError' });

/** 403 for a banned account, on every call that needs a session or an API key. */
export const accountBannedBody = errorBody
  .extend({
    code: codeOf('ACCOUNT_BANNED'),
    isBanned: z.literal(true),
    banReason: z.string().nullable(),
    bannedAt: z.string().nullable(),
  })
  .meta({ id: 'AccountBannedError' });

/** 429 of the gateway's rate limits (sign-in, password reset). */
export const rateLimitedBody = errorBody
  .extend({
    code: codeOf('RATE_LIMITED'),
    retryAfter: z.number().meta({ description: 'seconds until the next attempt is counted again' }),
  })
  .meta({ id: 'RateLimitedError' });

/**
 * A 429's Retry-After (RFC 9110, seconds) from what the refusal knows: the rate limiter's
 * `retryAfter`, or the plan's `nextBackupAvailable`. Limits that time does not lift (storage, number
 * of databases) have neither, and get no header.
 */
export function retryAfterSeconds(details: Record<string, unknown> | undefined, now = Date.now()) {
  if (typeof details?.retryAfter === 'number') return Math.max(1, Math.ceil(details.retryAfter));
  const next =
    typeof details?.nextBackupAvailable === 'string' ? Date.parse(details.nextBackupAvailable) : NaN;
  return Number.isNaN(next) ? undefined : Math.max(1, Math.ceil((next - now) / 1000));
}

/** Unknown /api paths answer JSON, not the web app. */
export const apiNotFound: RequestHandler = (req, res) => {
  res.status(404).json({ message: `No API route for ${req.method} ${req.path}`, code: 'NOT_FOUND' });
};

/**
 * The one place errors become HTTP answers: AppErrors keep their status, message and details;
 * body-parser failures are the caller's mistake (400/413); anything else is logged and answered
 * with a bare 500 that leaks nothing.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) return;
    if (err instanceof AppError) {
      // A service that failed or did not answer: the answer says little, the log says what happened.
      if (err.httpStatus >= 500 && err.cause)
        log[err.httpStatus === 503 ? 'warn' : 'error'](
          { cause: err.cause, method: req.method, route: routeLabel(req, err.httpStatus) },
          'service call failed',
        );
      const retryAfter = err.httpStatus === 429 ? retryAfterSeconds(err.details) : undefined;
      if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
      res.status(err.httpStatus).json({ message: err.message, code: err.code, ...err.details });
      return;
    }
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.parse.failed') {
      res.status(400).json({ message: 'Malformed JSON body', code: 'BAD_INPUT' });
      return;
    }
    if (e.type === 'entity.too.large') {
      res.status(413).json({ message: 'Request body is too large', code: 'BAD_INPUT' });
      return;
    }
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      res.status(e.status).json({ message: 'Bad request', code: 'BAD_INPUT' });
      return;
    }
    // The route's template, not the path: a path can hold a secret (a reset link's token).
    log.error({ err, method: req.method, route: routeLabel(req, 500) }, 'request failed');
    res.status(500).json({ message: 'Internal error', code: 'INTERNAL' });
  };
}
