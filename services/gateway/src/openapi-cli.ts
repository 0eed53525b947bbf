// `node dist/openapi-cli.js <file>` writes the OpenAPI document of every route to <file>
// (npm run openapi:gen); with --check it writes nothing and fails when <file> differs
// (npm run openapi:check). Nothing is started: only the routes' declarations are read.
import fs from 'node:fs';
import { API_VERSION, openApiDocument } from './http/openapi.js';
import { routeDeclarations } from './routes/index.js';

const [file, flag] = process.argv.slice(2);
if (!file) {
  console.error('usage: openapi-cli <file> [--check]');
  process.exit(2);
}
// Two-space JSON with a final newline, left alone by prettier (.prettierignore).
const text = `${JSON.stringify(openApiDocument(routeDeclarations(), API_VERSION), null, 2)}\n`;
if (flag === '--check') {
  const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (committed !== text) {
    console.error(`${file} is stale: run \`npm run openapi:gen\` and commit the result`);
    process.exit(1);
  }
} else {
  fs.writeFileSync(file, text);
}
