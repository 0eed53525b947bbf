import fs from 'node:fs';

/**
 * The command line of a generated JSON document (`<file> [--check]`: openapi-cli, asyncapi-cli):
 * writes the document to <file>, or with --check writes nothing and fails when <file> differs
 * (CI). `npmScript` names the script that regenerates it, for the message.
 */
export function generatedJsonCli(name: string, npmScript: string, document: () => unknown): void {
  const [file, flag] = process.argv.slice(2);
  if (!file) {
    console.error(`usage: ${name} <file> [--check]`);
    process.exit(2);
  }
  // Two-space JSON with a final newline, left alone by prettier (.prettierignore).
  const text = `${JSON.stringify(document(), null, 2)}\n`;
  if (flag !== '--check') {
    fs.writeFileSync(file, text);
    return;
  }
  const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (committed !== text) {
    console.error(`${file} is stale: run \`npm run ${npmScript}\` and commit the result`);
    process.exit(1);
  }
}
