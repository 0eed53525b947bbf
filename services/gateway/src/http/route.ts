import type { Request, Response, Router, RequestHandler } from 'express';
import { z } from 'zod';
import { AGENT_HEADERS, type ErrorKind } from '@coffer/contracts';
import { forbidden, parseInput } from '@coffer/common';
import type { AgentCaller, Caller, Identity } from './identity.js';
import { noteCaller } from './access-log.js';
import type { StepUpGuard } from './step-up.js';

/** Who may call: anyone, a signed-in user, an admin, or an agent with its owner's API key. */
export type Access = 'public' | 'user' | 'admin' | 'agent';

declare const BINARY: unique symbol;
/** A body that is a byte stream: documented as application/octet-stream, never parsed as JSON. */
export type Binary = z.ZodString & { readonly [BINARY]: true };
export const binary = z.string().meta({ format: 'binary' }) as Binary;

/**
 * Refusals a route can answer besides those its declaration implies (400 for input, 401/403 for
 * access, 413 for a JSON body): the kind's HTTP status comes from the one error table
 * (@coffer/contracts); the value says when, and optionally names a body with more fields than
 * the standard error.
 */
export type RouteErrors = Partial<Record<Exclude<ErrorKind, 'INTERNAL'>, RouteError>>;
export type RouteError = string | { when: string; body: z.ZodType };

type BodyOf<B> = B extends Binary ? undefined : z.infer<B>;
type AnswerOf<R extends z.ZodType> = R extends Binary ? void : z.input<R>;

/** A route declared in OpenAPI form elsewhere (contracts), as the route table takes it. */
export const routeOf = <M extends 'GET' | 'POST' | 'PUT' | 'DELETE'>(r: { method: M; path: string }) => ({
  method: r.method.toLowerCase() as Lowercase<M>,
  path: r.path.replace(/\{(\w+)\}/g, ':$1'),
});

export interface RouteSpec<
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
  H extends z.ZodObject = z.ZodObject,
  R extends z.ZodType = z.ZodType,
  A extends Access = Access,
> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Express path, e.g. /api/admin/users/:id */
  path: string;
  /** Stable name of the operation: the generated client's endpoint and hook are named after it. */
  operationId: string;
  summary: string;
  tag: string;
  access: A;
  /** A signed-in user's route a banned or inactive account may call too (signing out). */
  allowSuspended?: boolean;
  /**
   * The action needs the second factor again when the caller has two-factor sign-in on (step-up:
   * http/step-up.ts); a function decides from the validated request (e.g. only when the e-mail changes).
   */
  stepUp?: boolean | ((ctx: RouteContext<BodyOf<B>, z.infer<Q>, z.infer<P>, z.infer<H>, A>) => boolean);
  /** JSON body schema, or `binary` for a streamed body the handler reads from `req`. */
  body?: B;
  query?: Q;
  params?: P;
  /** Request headers the route reads (names in lower case). */
  headers?: H;
  /** Answer schema (documents the route and strips anything undeclared), or `binary` when the handler streams. */
  response: R;
  status?: number;
  errors?: RouteErrors;
  /** Extra middleware run after authentication and validation (e.g. rate limits); what it returns is ignored. */
  before?: Array<(ctx: RouteContext<BodyOf<B>, z.infer<Q>, z.infer<P>, z.infer<H>, A>) => Promise<unknown>>;
  handler: (ctx: RouteContext<BodyOf<B>, z.infer<Q>, z.infer<P>, z.infer<H>, A>) => Promise<AnswerOf<R>>;
}

export interface RouteContext<B, Q, P, H = unknown, A extends Access = Access> {
  body: B;
  query: Q;
  params: P;
  headers: H;
  caller: A extends 'public' ? Caller | undefined : A extends 'agent' ? AgentCaller : Caller;
  req: Request;
  res: Response;
}

/** Collects routes for the router and the OpenAPI document alike. */
export class RouteTable {
  readonly specs: RouteSpec[] = [];

  constructor(
    private readonly identity: Identity,
    private readonly requireStepUp?: StepUpGuard,
  ) {}

  add<
    B extends z.ZodType,
    Q extends z.ZodType,
    P extends z.ZodType,
    H extends z.ZodObject,
    R extends z.ZodType,
    A extends Access,
  >(spec: RouteSpec<B, Q, P, H, R, A>) {
    this.specs.push(spec as unknown as RouteSpec);
  }

  /** Registers every route: authenticate → validate → handler → shape the answer. */
  mount(router: Router): void {
    for (const spec of this.specs) {
      const handler: RequestHandler = async (req, res) => {
        let caller: Caller | undefined;
        if (spec.access === 'agent') {
          const agentId = req.header(AGENT_HEADERS.agentId) ?? '';
          caller = await this.identity.fromApiKey(req.header(AGENT_HEADERS.apiKey), agentId);
        } else if (spec.access !== 'public') {
          const token = this.identity.bearer(req.headers.authorization);
          caller = await this.identity.fromToken(token, { evenIfSuspended: spec.allowSuspended });
          if (spec.access === 'admin' && caller.role !== 'admin') throw forbidden('Admin access required');
          if (spec.access === 'admin' && caller.twoFactorEnrolmentRequired)
            throw forbidden(
              'Admins must use two-factor sign-in. Set it up in Profile → Security before anything else.',
              'TWO_FACTOR_ENROLMENT_REQUIRED',
            );
        }
        noteCaller(res, caller?.id);
        const ctx: RouteContext<unknown, unknown, unknown, Record<string, unknown>> = {
          params: spec.params ? parseInput(spec.params, req.params) : {},
          query: spec.query ? parseInput(spec.query, req.query) : {},
          headers: spec.headers ? parseInput(spec.headers, req.headers) : {},
          body: spec.body === binary ? undefined : spec.body ? parseInput(spec.body, req.body ?? {}) : {},
          caller: caller as Caller,
          req,
          res,
        };
        const stepUp = typeof spec.stepUp === 'function' ? spec.stepUp(ctx) : spec.stepUp;
        if (stepUp) {
          if (!this.requireStepUp) throw new Error(`${spec.operationId}: step-up asked for, none configured`);
          await this.requireStepUp(caller as Caller, req);
        }
        for (const step of spec.before ?? []) await step(ctx);
        const result = await spec.handler(ctx);
        if (res.headersSent || spec.response === binary) return;
        res.status(spec.status ?? 200).json(spec.response.parse(result));
      };
      router[spec.method](spec.path, handler);
    }
  }
}

/** A plain `{ message }` answer. */
export const messageBody = z.object({ message: z.string() });
