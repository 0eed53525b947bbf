// @rtk-query/codegen-openapi: typed clients generated from the gateway's OpenAPI document
// (services/gateway/openapi.json). Written by `npm run api:gen`; `npm run openapi:check` fails when
// a committed copy is stale. Never edit the outputs by hand.

/** Binary bodies, the agent's data plane and the payment provider's webhook are not for the web app's JSON client. */
const webEndpoint = (name, { path, operation }) =>
  !path.startsWith('/api/agent/') &&
  path !== '/api/billing/webhook' &&
  !('application/octet-stream' in (operation.responses?.['200']?.content ?? {}));

/** @type {import('@rtk-query/codegen-openapi').ConfigFile} */
export default {
  schemaFile: './services/gateway/openapi.json',
  apiFile: './web/src/api/baseApi.ts',
  apiImport: 'baseApi',
  exportName: 'generatedApi',
  // Error bodies carry free-form details: `unknown`, not `any`.
  useUnknown: true,
  outputFiles: {
    // The web app's RTK Query endpoints and hooks, injected into baseApi (web/src/api/index.ts adds tags).
    './web/src/api/generated.ts': {
      filterEndpoints: webEndpoint,
      hooks: true,
      flattenArg: true,
      encodePathParams: true,
      // scripts/api-gen.mjs writes the types apart, with `ApiPaths` (these operations' types by
      // `METHOD /path`): the one API type source of the web app and of the integration tests' api()
      // (tests/integration/api-types.ts), which must not import the web app's store.
      typesFile: './web/src/api/generated-types.ts',
      pathMap: 'ApiPaths',
      // Spec §7: the dashboard reads only whether the answer is OK, on demand.
      endpointOverrides: [
        { pattern: 'checkServerStatus', type: 'mutation' },
        // The lists' plain call (their newest rows) stays argument-free for the cache entries
        // everything updates; older pages come through web/src/api/pages.ts.
        { pattern: ['getBackups', 'getRestores', 'adminListUsers'], parameterFilter: () => false },
      ],
    },
  },
};
