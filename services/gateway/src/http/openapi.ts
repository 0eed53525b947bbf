import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { AGENT_HEADERS, agentHeaderKey, ERROR_KINDS, type ErrorKind } from '@coffer/contracts';
import { STEP_UP_CODE_HEADER, STEP_UP_TOKEN_HEADER } from '@coffer/contracts';
import { accountBannedBody, errorBody } from './errors.js';
import { binary, type RouteError, type RouteErrors, type RouteSpec } from './route.js';

/** The API's version in the document's info. */
export const API_VERSION = '1.0.0';

/** Largest JSON body the API parses (app.ts); a bigger one is a 413. */
export const JSON_BODY_LIMIT = '100kb';

const agentIdHeader = z.object({
  [agentHeaderKey('agentId')]: z
    .string()
    .optional()
    .meta({ description: 'the id the agent was given when it registered over its socket' }),
});

const json = (schema: z.ZodType) => ({ 'application/json': { schema } });
const bytes = (description: string) => ({
  'application/octet-stream': { schema: binary.meta({ description }) },
});

const whenOf = (e: RouteError) => (typeof e === 'string' ? e : e.when);
const bodyOf = (e: RouteError) => (typeof e === 'string' ? errorBody : e.body);

/** The refusals a route's declaration implies (input, access), merged with those it declares. */
function refusals(spec: RouteSpec): Array<[ErrorKind, RouteError]> {
  const implied: RouteErrors = {};
  if (spec.params ?? spec.query ?? spec.body ?? spec.headers)
    implied.BAD_INPUT = 'a parameter, header or body field is invalid (`field` names it)';
  if (spec.access !== 'public') {
    implied.UNAUTHENTICATED =
      spec.access === 'agent' ? 'no API key, or an unknown one' : 'no token, or a bad or expired one';
    implied.FORBIDDEN =
      spec.access === 'admin'
        ? {
            when: 'the account is banned or inactive, or is not an admin, or must set up two-factor sign-in first (code TWO_FACTOR_ENROLMENT_REQUIRED)',
            // A signed-in non-admin gets the plain error (code FORBIDDEN), not the ban's details.
            body: z.union([accountBannedBody, errorBody]),
          }
        : {
            when: 'the account is banned, or inactive (code ACCOUNT_INACTIVE)',
            body: z.union([accountBannedBody, errorBody]),
          };
  }
  // Signing out is allowed to a banned or inactive account.
  if (spec.allowSuspended) delete implied.FORBIDDEN;
  const all: RouteErrors = { ...implied };
  if (spec.stepUp) {
    const wrongCode = 'the step-up code is wrong or used (code TWO_FACTOR_CODE_INVALID)';
    all.BAD_INPUT = all.BAD_INPUT ? `${whenOf(all.BAD_INPUT)}; or ${wrongCode}` : wrongCode;
    all.FORBIDDEN = {
      // The step-up headers are not request parameters of the generated clients: the web app adds
      // them when it retries after the step-up dialog, for any route.
      when:
        `${whenOf(all.FORBIDDEN!)}; or two-factor sign-in is on and the request carries no valid step-up ` +
        `(code STEP_UP_REQUIRED): send a current code in ${STEP_UP_CODE_HEADER} or a token from ` +
        `POST /api/auth/step-up in ${STEP_UP_TOKEN_HEADER}`,
      body: bodyOf(all.FORBIDDEN!),
    };
  }
  for (const [kind, own] of Object.entries(spec.errors ?? {}) as Array<[keyof RouteErrors, RouteError]>) {
    const base = implied[kind];
    // Both answer with the same status: the implied refusal (e.g. a ban) or the route's own.
    all[kind] = !base
      ? own
      : {
          when: `${whenOf(base)}; or ${whenOf(own)}`,
          body: bodyOf(base) === bodyOf(own) ? bodyOf(own) : z.union([bodyOf(base), bodyOf(own)]),
        };
  }
  return Object.entries(all) as Array<[ErrorKind, RouteError]>;
}

const SUCCESS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

function responses(spec: RouteSpec): ZodOpenApiResponsesObject {
  const status = spec.status ?? 200;
  const out: Record<string, ZodOpenApiResponseObject> = {
    [status]: {
      description: SUCCESS[status] ?? 'Success',
      content:
        spec.response === binary
          ? bytes('the encrypted backup, streamed with Content-Length')
          : json(spec.response),
    },
  };
  for (const [kind, refusal] of refusals(spec)) {
    out[ERROR_KINDS[kind]] = { description: `${kind}: ${whenOf(refusal)}`, content: json(bodyOf(refusal)) };
  }
  if (spec.body && spec.body !== binary) {
    out[413] = {
      description: `the JSON body is larger than ${JSON_BODY_LIMIT.replace('kb', ' kB')}`,
      content: json(errorBody),
    };
  }
  return out as ZodOpenApiResponsesObject;
}

function operation(spec: RouteSpec): ZodOpenApiOperationObject {
  const headers =
    spec.access === 'agent' ? z.object({ ...agentIdHeader.shape, ...spec.headers?.shape }) : spec.headers;
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    tags: [spec.tag],
    security: spec.access === 'agent' ? [{ apiKey: [] }] : spec.access === 'public' ? [] : [{ bearer: [] }],
    ...(spec.params || spec.query || headers
      ? {
          requestParams: {
            ...(spec.params && { path: spec.params }),
            ...(spec.query && { query: spec.query }),
            ...(headers && { header: headers }),
          },
        }
      : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: spec.body === binary ? bytes('the encrypted backup') : json(spec.body),
          },
        }
      : {}),
    responses: responses(spec),
  } as ZodOpenApiOperationObject;
}

/** The OpenAPI 3.1 document of every route the gateway serves, from the routes' own zod schemas. */
export function openApiDocument(specs: RouteSpec[], version: string): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const spec of specs) {
    const path = spec.path.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...paths[path], [spec.method]: operation(spec) };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Coffer API',
      version,
      description:
        "The REST API of Coffer, generated from the gateway routes' zod schemas. Errors answer " +
        '`{ message, code, ...details }` with the status of their kind.',
    },
    servers: [{ url: '/', description: 'the gateway serving this document' }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        apiKey: { type: 'apiKey', in: 'header', name: AGENT_HEADERS.apiKey },
      },
    },
    paths,
  });
}
