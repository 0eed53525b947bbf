import type { Request, RequestHandler, Response } from 'express';
import {
  httpRequestDuration,
  REQUEST_ID_HEADER,
  requestIdFrom,
  runInRequest,
  type Logger,
  type RequestContext,
} from '@coffer/common';

/**
 * The `route` label and access-log field: the declared path template (`/api/backups/:id`), never
 * the raw URL, so ids and tokens in paths neither reach the log nor multiply the series.
 */
export function routeLabel(req: Request, status: number): string {
  const path: unknown = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return `${req.baseUrl}${path}`;
  // The web app's catch-all is a pattern: every client-side route shares one label.
  if (path !== undefined) return '(web app)';
  return status === 404 ? '(unmatched)' : '(static)';
}

const contextOf = (res: Response): RequestContext | undefined =>
  (res.locals as { requestContext?: RequestContext }).requestContext;

/**
 * First middleware: takes a valid `X-Request-Id` or makes one, answers with it, runs the rest of
 * the request inside it (so gRPC calls and NATS events carry it and every log line has it), and
 * when the answer is done records the latency histogram and writes one access-log line.
 */
export function observeRequests(log: Logger): RequestHandler {
  return (req, res, next) => {
    const ctx: RequestContext = { requestId: requestIdFrom(req.headers[REQUEST_ID_HEADER]) };
    (res.locals as { requestContext?: RequestContext }).requestContext = ctx;
    res.setHeader('X-Request-Id', ctx.requestId);
    const started = process.hrtime.bigint();
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // The client went away before an answer started: nginx's 499, so it is not counted as a 200.
      const status = res.headersSent ? res.statusCode : 499;
      const route = routeLabel(req, status);
      httpRequestDuration().observe({ method: req.method, route, status: String(status) }, seconds);
      // Only these fields: headers (Authorization, cookies), the query and the body stay out.
      const line = { method: req.method, route, status, durationMs: Math.round(seconds * 1e4) / 10 };
      runInRequest(ctx, () =>
        status >= 500 ? log.error(line, 'request failed') : log.info(line, 'request'),
      );
    };
    res.once('finish', record);
    res.once('close', record);
    runInRequest(ctx, next);
  };
}

/**
 * Re-enters the request's context: body parsing resumes the chain from the socket's callbacks,
 * outside the context the first middleware started.
 */
export const resumeRequestContext: RequestHandler = (_req, res, next) => {
  const ctx = contextOf(res);
  if (ctx) runInRequest(ctx, next);
  else next();
};

/** Names the signed-in caller in the request's context: its later log lines and the access log carry it. */
export function noteCaller(res: Response, userId: string | undefined): void {
  const ctx = contextOf(res);
  if (ctx && userId) ctx.userId = userId;
}
