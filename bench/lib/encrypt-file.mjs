// The agent's encrypt+compress stage alone, as its own process so it is timed like `cat` and
// `restic`: file → createEncryptor (zstd frames on every core → AES-256-GCM chunks, Coffer v1) → file.
// Prints one JSON line: bytes in and out and this process's peak RSS.
//   node encrypt-file.mjs INPUT OUTPUT [--agent-dist DIR]   (another build: "before" beside "after")
// Only the stage's modules are loaded: the agent's index pulls in the MongoDB driver and
// Socket.IO (~0.2 CPU-s at start), which the running agent pays once, not per backup.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'agent-dist': { type: 'string' } },
});
const dist = path.resolve(values['agent-dist'] ?? path.join(import.meta.dirname, '../../agent/dist'));
const require = createRequire(import.meta.url);
const { createEncryptor } = require(`${dist}/crypto/encrypt.js`);
const { generateMasterKey } = require(`${dist}/crypto/key.js`);

const [input, output] = positionals;

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
