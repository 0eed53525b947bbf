// `node dist/asyncapi-cli.js <file>` writes the AsyncAPI document of every event to <file>
// (npm run asyncapi:gen); with --check it writes nothing and fails when <file> differs
// (npm run asyncapi:check, in CI), like the gateway's openapi-cli.
import fs from 'node:fs';
import { asyncApiDocument } from './asyncapi.js';

const [file, flag] = process.argv.slice(2);
if (!file) {
  console.error('usage: asyncapi-cli <file> [--check]');
  process.exit(2);
}
// Two-space JSON with a final newline, left alone by prettier (.prettierignore).
const text = `${JSON.stringify(asyncApiDocument('1.0.0'), null, 2)}\n`;
if (flag === '--check') {
  const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (committed !== text) {
    console.error(`${file} is stale: run \`npm run asyncapi:gen\` and commit the result`);
    process.exit(1);
  }
} else {
  fs.writeFileSync(file, text);
}
