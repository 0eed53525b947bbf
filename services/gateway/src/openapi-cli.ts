// `node dist/openapi-cli.js <file>` writes the OpenAPI document of every route to <file>
// (npm run openapi:gen); with --check it writes nothing and fails when <file> differs
// (npm run openapi:check). Nothing is started: only the routes' declarations are read.
import { generatedJsonCli } from '@coffer/common';
import { API_VERSION, openApiDocument } from './http/openapi.js';
import { routeDeclarations } from './routes/index.js';

generatedJsonCli('openapi-cli', 'openapi:gen', () => openApiDocument(routeDeclarations(), API_VERSION));
