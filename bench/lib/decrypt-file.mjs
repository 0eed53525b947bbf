// The agent's decrypt+decompress stage alone, as its own process (the restore side of the stage
// measurement): Coffer file → createDecryptor (AES-256-GCM chunks → zstd) → discarded.
// Prints one JSON line: bytes in and out and this process's peak RSS. Only the stage's modules are
// loaded (see encrypt-file.mjs).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const require = createRequire(import.meta.url);
const { createDecryptor } = require('../../agent/dist/crypto/decrypt.js');

const [input] = process.argv.slice(2);
// The key comes from the harness through the environment: never on a command line or in a log.
const key = Buffer.from(process.env.COFFER_BENCH_KEY_HEX ?? '', 'hex');
let bytesOut = 0;
await pipeline(
  fs.createReadStream(input, { highWaterMark: 256 * 1024 }),
  createDecryptor(key).stream,
  new Writable({ write: (c, _e, cb) => ((bytesOut += c.length), cb()) }),
);
process.stdout.write(
  JSON.stringify({ bytesIn: fs.statSync(input).size, bytesOut, maxRssKb: process.resourceUsage().maxRSS }) +
    '\n',
);
