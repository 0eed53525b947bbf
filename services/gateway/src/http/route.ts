import type { Request, Response, Router, RequestHandler } from 'express';
import { z } from 'zod';
import { forbidden, parseInput } from '@coffer/common';
import type { AgentCaller, Caller, Identity } from './identity.js';

/** Who may call: anyone, a signed-in user, an admin, or an agent with its owner's API key. */
export type Access = 'public' | 'user' | 'admin' | 'agent';

export interface RouteSpec<
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
  A extends Access = Access,
> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Express path, e.g. /api/admin/users/:id */
  path: string;
  summary: string;
  tag: string;
  access: A;
  body?: B;
  query?: Q;
  params?: P;
  /** Answer schema: documents the route and strips anything not declared from the answer. */
  response: R;
  status?: number;
  /** Extra middleware run after authentication and validation (e.g. rate limits). */
  before?: Array<(ctx: RouteContext<z.infer<B>, z.infer<Q>, z.infer<P>, A>) => Promise<void>>;
  handler: (ctx: RouteContext<z.infer<B>, z.infer<Q>, z.infer<P>, A>) => Promise<z.input<R>>;
}

export interface RouteContext<B, Q, P, A extends Access = Access> {
  body: B;
  query: Q;
  params: P;
  caller: A extends 'public' ? Caller | undefined : A extends 'agent' ? AgentCaller : Caller;
  req: Request;
  res: Response;
}

/** Collects routes for the router and the OpenAPI document alike. */
export class RouteTable {
  readonly specs: RouteSpec[] = [];

  constructor(private readonly identity: Identity) {}

  add<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType, R extends z.ZodType, A extends Access>(
    spec: RouteSpec<B, Q, P, R, A>,
  ) {
    this.specs.push(spec as unknown as RouteSpec);
  }

  /** Registers every route: authenticate → validate → handler → shape the answer. */
  mount(router: Router): void {
    for (const spec of this.specs) {
      const handler: RequestHandler = async (req, res) => {
        let caller: Caller | undefined;
        if (spec.access === 'agent') {
          const agentId = req.header('x-coffer-agent-id') ?? '';
          caller = await this.identity.fromApiKey(req.header('x-api-key'), agentId);
        } else if (spec.access !== 'public') {
          const token = this.identity.bearer(req.headers.authorization);
          caller = await this.identity.fromToken(token);
          if (spec.access === 'admin' && caller.role !== 'admin') throw forbidden('Admin access required');
        }
        const ctx: RouteContext<unknown, unknown, unknown> = {
          params: spec.params ? parseInput(spec.params, req.params) : {},
          query: spec.query ? parseInput(spec.query, req.query) : {},
          body: spec.body ? parseInput(spec.body, req.body ?? {}) : {},
          caller: caller as Caller,
          req,
          res,
        };
        for (const step of spec.before ?? []) await step(ctx);
        const result = await spec.handler(ctx);
        if (res.headersSent) return;
        res.status(spec.status ?? 200).json(spec.response.parse(result));
      };
      router[spec.method](spec.path, handler);
    }
  }
}

/** The standard error answer: a message for people and a stable code for programs. */
export const errorBody = z
  .object({ message: z.string(), code: z.string() })
  .catchall(z.unknown())
  .meta({ id: 'Error' });

/** A plain `{ message }` answer. */
export const messageBody = z.object({ message: z.string() });
