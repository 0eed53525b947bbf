import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, type Logger } from '@coffer/common';

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
    log.error({ err, method: req.method, path: req.path }, 'request failed');
    res.status(500).json({ message: 'Internal error', code: 'INTERNAL' });
  };
}
