// Builds the single-file agent served at /downloads/coffer-agent-linux-x64: the whole CLI and its
// dependencies in one script for Node.js 24 (it needs no node_modules on the customer's server).
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';

const outfile = new URL('../dist/bundle/coffer-agent-linux-x64', import.meta.url).pathname;
await build({
  entryPoints: [new URL('../src/cli/main.ts', import.meta.url).pathname],
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  outfile,
  logLevel: 'warning',
  banner: { js: '#!/usr/bin/env node' },
  footer: { js: 'module.exports.cli();' },
  // Optional extras of the MongoDB and WebSocket drivers that the agent never uses.
  external: [
    'kerberos',
    '@mongodb-js/zstd',
    'snappy',
    'gcp-metadata',
    'aws4',
    'mongodb-client-encryption',
    'socks',
    '@aws-sdk/credential-providers',
    'bufferutil',
    'utf-8-validate',
  ],
});
chmodSync(outfile, 0o755);
