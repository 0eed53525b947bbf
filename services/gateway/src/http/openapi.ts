import { z } from 'zod';
import { errorBody, type RouteSpec } from './route.js';

const toSchema = (s: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'openapi-3.0' }) as Record<string, unknown>;

const errorResponses = (spec: RouteSpec) => {
  const ref = { content: { 'application/json': { schema: toSchema(errorBody, 'output') } } };
  const out: Record<string, unknown> = { '400': { description: 'Bad input', ...ref } };
  if (spec.access !== 'public') {
    out['401'] = { description: 'No token, or a bad or expired one', ...ref };
    out['403'] = { description: 'Banned account or missing role', ...ref };
  }
  return out;
};

function parameters(spec: RouteSpec) {
  const params: unknown[] = [];
  for (const [where, schema] of [
    ['path', spec.params],
    ['query', spec.query],
  ] as const) {
    if (!schema) continue;
    const json = toSchema(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, s] of Object.entries(json.properties ?? {})) {
      params.push({
        name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        schema: s,
      });
    }
  }
  return params;
}

/** Builds the OpenAPI 3 document of every route the gateway serves, from the routes' own schemas. */
export function openApiDocument(specs: RouteSpec[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of specs) {
    const path = spec.path.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][spec.method] = {
      summary: spec.summary,
      tags: [spec.tag],
      ...(spec.access === 'agent'
        ? { security: [{ apiKey: [] }] }
        : spec.access !== 'public'
          ? { security: [{ bearer: [] }] }
          : {}),
      parameters: parameters(spec),
      ...(spec.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: toSchema(spec.body, 'input') } },
            },
          }
        : {}),
      responses: {
        [String(spec.status ?? 200)]: {
          description: 'Success',
          content: { 'application/json': { schema: toSchema(spec.response, 'output') } },
        },
        ...errorResponses(spec),
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Coffer API', version },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      },
    },
    paths,
  };
}
