// The agent's encrypt+compress stage alone, as its own process so it is timed like `cat` and
// `restic`: file → createEncryptor (zstd frames on every core → AES-256-GCM chunks, Coffer v1) → file.
// Prints one JSON line: bytes in and out and this process's peak RSS.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { pipeline } from 'node:stream/promises';

const require = createRequire(import.meta.url);
const { createEncryptor, generateMasterKey } = require('../../agent/dist/index.js');

const [input, output] = process.argv.slice(2);
// A key from the harness (environment, so that decrypt-file.mjs can read the output), or a fresh one.
const masterKey = process.env.COFFER_BENCH_KEY_HEX
  ? Buffer.from(process.env.COFFER_BENCH_KEY_HEX, 'hex')
  : generateMasterKey();
const { stream, encrypt } = createEncryptor({ masterKey });
// 64 KiB reads: what the agent gets from mongodump's stdout pipe.
await pipeline(
  fs.createReadStream(input, { highWaterMark: 64 * 1024 }),
  stream,
  fs.createWriteStream(output),
);
process.stdout.write(
  JSON.stringify({
    bytesIn: fs.statSync(input).size,
    payloadBytes: encrypt.bytesIn,
    bytesOut: encrypt.bytesOut,
    maxRssKb: process.resourceUsage().maxRSS,
  }) + '\n',
);
