// `node dist/asyncapi-cli.js <file>` writes the AsyncAPI document of every event to <file>
// (npm run asyncapi:gen); with --check it writes nothing and fails when <file> differs
// (npm run asyncapi:check, in CI), like the gateway's openapi-cli.
import { asyncApiDocument } from './asyncapi.js';
import { generatedJsonCli } from './generated-json.js';

generatedJsonCli('asyncapi-cli', 'asyncapi:gen', () => asyncApiDocument('1.0.0'));
