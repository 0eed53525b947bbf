// The frame-parallel compressor: what comes out must be one zstd stream that any single-stream
// decoder reads back to the exact input, in order, whatever the write sizes; and a consumer that
// stops reading must stop the compressor from taking more input (bounded memory).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import zlib from 'node:zlib';
import { createDecryptor } from './decrypt.js';
import { createEncryptor } from './encrypt.js';
import { generateMasterKey, keyFileText } from './key.js';
import { createZstdDecompressor, ParallelZstdCompress, ZstdFrameSplitter } from './parallel-zstd.js';

const ROOT = path.resolve(__dirname, '../../..');

/** Half text that compresses, half random bytes that do not: frames of very different sizes. */
function sample(bytes: number): Buffer {
  const parts: Buffer[] = [];
  for (let n = 0, i = 0; n < bytes; i++) {
    const b =
      i % 2
        ? randomBytes(1 + Math.floor(Math.random() * 30_000))
        : Buffer.from(`{"_id":${i},"name":"customer ${i}","city":"Lyon"}\n`.repeat(1 + (i % 500)));
    parts.push(b);
    n += b.length;
  }
  return Buffer.concat(parts).subarray(0, bytes);
}

/** `data` in writes of random sizes, from 1 byte to several frames at once. */
function randomWrites(data: Buffer, max: number): Readable {
  const out: Buffer[] = [];
  for (let i = 0; i < data.length;) {
    const n = Math.random() < 0.2 ? 1 + Math.floor(Math.random() * 16) : 1 + Math.floor(Math.random() * max);
    out.push(data.subarray(i, i + n));
    i += n;
  }
  return Readable.from(out);
}

function collect(): { sink: Writable; data: () => Buffer; writes: () => number } {
  const parts: Buffer[] = [];
  return {
    sink: new Writable({ write: (c: Buffer, _e, cb) => (parts.push(c), cb()) }),
    data: () => Buffer.concat(parts),
    writes: () => parts.length,
  };
}

async function compress(
  input: Readable,
  opts: { frameSize: number; maxInFlight: number },
): Promise<{ out: Buffer; z: ParallelZstdCompress }> {
  const z = new ParallelZstdCompress({ level: 1, ...opts });
  const c = collect();
  await pipeline(input, z, c.sink);
  return { out: c.data(), z };
}

/** The agent's decoder (node:zlib behind the frame splitter), input in random slices. */
async function unzstd(data: Buffer): Promise<Buffer> {
  const c = collect();
  await pipeline(randomWrites(data, 20_000), createZstdDecompressor(), c.sink);
  return c.data();
}

/** The zstd CLI reading stdin: a plain single-stream decoder, independent of node:zlib. */
function zstdCli(data: Buffer): Buffer {
  const r = spawnSync('zstd', ['-d', '-c', '-q'], { input: data, maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`zstd -d failed: ${r.stderr.toString()}`);
  return r.stdout;
}
const haveZstdCli = spawnSync('zstd', ['--version']).status === 0;
if (!haveZstdCli)
  console.warn('zstd CLI missing: the CLI decoding checks are skipped (apt-get install zstd)');

function expectSame(actual: Buffer, expected: Buffer): void {
  expect(actual.length).toBe(expected.length);
  expect(actual.equals(expected)).toBe(true);
}

describe('ParallelZstdCompress', () => {
  it('keeps order and content across many frame boundaries, whatever the write sizes', async () => {
    const data = sample(3_000_000);
    const frameSize = 50_000;
    const { out, z } = await compress(randomWrites(data, 3 * frameSize), { frameSize, maxInFlight: 3 });
    const frames = Math.ceil(data.length / frameSize);
    expect(z.framesStarted).toBe(frames);
    expect(z.framesEmitted).toBe(frames);
    expect(z.peakInFlight).toBeLessThanOrEqual(3);
    expect(z.bytesIn).toBe(data.length);
    expect(z.bytesOut).toBe(out.length);
    expectSame(await unzstd(out), data);
    if (haveZstdCli) expectSame(zstdCli(out), data);
  });

  it('gives one empty frame for an empty input', async () => {
    const { out, z } = await compress(Readable.from([]), { frameSize: 1024, maxInFlight: 2 });
    expect(z.framesStarted).toBe(1);
    expect(out.length).toBeGreaterThan(0);
    expect((await unzstd(out)).length).toBe(0);
    if (haveZstdCli) expect(zstdCli(out).length).toBe(0);
  });

  it('gives exactly one frame for an input of exactly one frame, and no empty one after it', async () => {
    const data = sample(65_536);
    const { out, z } = await compress(randomWrites(data, 5000), { frameSize: 65_536, maxInFlight: 2 });
    expect(z.framesStarted).toBe(1);
    expectSame(await unzstd(out), data);
    if (haveZstdCli) expectSame(zstdCli(out), data);
  });

  it('splits one write of many frames without exceeding the frames in flight', async () => {
    const data = sample(2_000_000);
    const { out, z } = await compress(Readable.from([data]), { frameSize: 40_000, maxInFlight: 2 });
    expect(z.framesStarted).toBe(50);
    expect(z.peakInFlight).toBe(2);
    expectSame(await unzstd(out), data);
  });

  it('stops taking input while the consumer does not read (frames in flight bounded)', async () => {
    const frameSize = 16 * 1024;
    const maxInFlight = 3;
    const data = randomBytes(200 * frameSize); // incompressible: every frame stays ~frameSize
    let produced = 0;
    const source = new Readable({
      highWaterMark: frameSize,
      read() {
        if (produced >= data.length) return void this.push(null);
        const piece = data.subarray(produced, produced + 8192);
        produced += piece.length;
        this.push(piece);
      },
    });
    let open = false;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const received: Buffer[] = [];
    const sink = new Writable({
      highWaterMark: 1,
      write(c: Buffer, _e, cb) {
        received.push(c);
        if (open) cb();
        else void gate.then(() => cb());
      },
    });
    const z = new ParallelZstdCompress({ level: 1, frameSize, maxInFlight });
    const done = pipeline(source, z, sink);

    // Let everything that can move, move: no compression left on the pool and no input taken
    // over several turns of the event loop, each after a short timer, so a compression finishing
    // late on a loaded machine (libuv's pool) is not taken for the end of the movement.
    for (let still = 0, last = -1; still < 5;) {
      await nextTurn();
      await new Promise((r) => setTimeout(r, 10));
      still = z.compressing === 0 && produced === last ? still + 1 : 0;
      last = produced;
    }
    // The consumer holds one frame; the compressor's readable side holds what fits under its
    // high-water mark; the pool holds at most maxInFlight; then the input stops.
    const readableFrames = Math.ceil(z.readableHighWaterMark / frameSize) + 1;
    expect(z.inFlight).toBeGreaterThan(0);
    expect(z.inFlight).toBeLessThanOrEqual(maxInFlight);
    expect(z.framesEmitted).toBeLessThanOrEqual(1 + readableFrames);
    expect(z.framesStarted).toBeLessThanOrEqual(maxInFlight + 1 + readableFrames);
    expect(produced).toBeLessThan(data.length / 4);

    open = true;
    release();
    await done;
    expect(z.peakInFlight).toBeLessThanOrEqual(maxInFlight);
    expect(z.framesStarted).toBe(200);
    expectSame(await unzstd(Buffer.concat(received)), data);
  });

  it('fails the stream instead of hanging when the consumer goes away', async () => {
    const z = new ParallelZstdCompress({ level: 1, frameSize: 1024, maxInFlight: 2 });
    const sink = new Writable({
      write(_c, _e, cb) {
        cb(new Error('upload refused'));
      },
    });
    await expect(pipeline(Readable.from([sample(100_000)]), z, sink)).rejects.toThrow('upload refused');
  });
});

describe('ZstdFrameSplitter', () => {
  it('ends a piece at every frame end, so each frame ends a write of the decoder', async () => {
    const data = sample(600_000);
    const { out } = await compress(Readable.from([data]), { frameSize: 30_000, maxInFlight: 2 });
    const framed = Buffer.concat([out, Buffer.from('28b52ffd2000010000', 'hex')]); // + an empty frame
    const splitter = new ZstdFrameSplitter();
    const c = collect();
    await pipeline(randomWrites(framed, 7000), splitter, c.sink);
    expect(splitter.frames).toBe(21);
    expectSame(c.data(), framed);
    expectSame(await unzstd(framed), data);
  });

  it('still decodes the one-frame streams earlier agents wrote, and skippable frames', async () => {
    const data = sample(1_000_000);
    const c = collect();
    await pipeline(randomWrites(data, 50_000), zlib.createZstdCompress(), c.sink);
    const oneFrame = c.data();
    expectSame(await unzstd(oneFrame), data);
    const skippable = Buffer.concat([Buffer.from('502a4d1803000000', 'hex'), Buffer.from('abc')]);
    expectSame(
      await unzstd(Buffer.concat([skippable, oneFrame, skippable, oneFrame])),
      Buffer.concat([data, data]),
    );
  });

  it('rejects what is not zstd, and a stream that ends inside a frame, as BAD_PAYLOAD', async () => {
    const { out } = await compress(Readable.from([sample(200_000)]), { frameSize: 50_000, maxInFlight: 2 });
    const bad = Buffer.from(out);
    bad.writeUInt32LE(0x12345678, 0);
    await expect(unzstd(bad)).rejects.toMatchObject({
      code: 'BAD_PAYLOAD',
      message: /frame 1 does not start/,
    });
    // Cut anywhere but at a frame's end: the splitter says so, whatever the decoder does with an end.
    for (const cut of [3, 100, out.length - 1])
      await expect(unzstd(out.subarray(0, cut))).rejects.toMatchObject({ code: 'BAD_PAYLOAD' });
  });
});

describe('createEncryptor with zstd frames', () => {
  const key = generateMasterKey();

  async function encrypt(data: Buffer, frameSize: number): Promise<Buffer> {
    const { stream, zstd } = createEncryptor({
      masterKey: key,
      zstdFrameSize: frameSize,
      zstdMaxInFlight: 3,
    });
    const c = collect();
    await pipeline(randomWrites(data, 100_000), stream, c.sink);
    expect(zstd!.framesStarted).toBe(Math.max(1, Math.ceil(data.length / frameSize)));
    return c.data();
  }

  it('round-trips through the agent decryptor', async () => {
    const data = sample(1_500_000);
    const file = await encrypt(data, 30_000);
    const { stream } = createDecryptor(key);
    const c = collect();
    await pipeline(Readable.from([file]), stream, c.sink);
    expectSame(c.data(), data);
  });

  const pythonReady =
    spawnSync('python3', ['-c', 'import cryptography, zstandard'], { encoding: 'utf8' }).status === 0;
  (pythonReady ? it : it.skip)(
    'is read by docs/decrypt_coffer.py (concatenated frames)',
    async () => {
      const data = sample(1_200_000);
      const file = await encrypt(data, 25_000);
      const dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-frames-'));
      try {
        writeFileSync(path.join(dir, 'b.coffer'), file);
        writeFileSync(path.join(dir, 'key.txt'), keyFileText(key));
        const r = spawnSync(
          'python3',
          [
            path.join(ROOT, 'docs/decrypt_coffer.py'),
            '--key-file',
            path.join(dir, 'key.txt'),
            path.join(dir, 'b.coffer'),
            path.join(dir, 'b.archive'),
          ],
          { encoding: 'utf8' },
        );
        expect(r.stderr).toBe('');
        expect(r.status).toBe(0);
        expectSame(readFileSync(path.join(dir, 'b.archive')), data);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
