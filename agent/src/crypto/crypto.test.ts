import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createDecryptor, decryptPayload } from './decrypt.js';
import { createEncryptor, encryptPayload, EncryptTransform } from './encrypt.js';
import { CofferFormatError, type CofferFormatErrorCode } from './errors.js';
import { CHUNK_HEADER_LENGTH, Compression, HEADER_LENGTH, keyFingerprint, TAG_LENGTH } from './format.js';
import { decryptFile, verifyFile } from './verify.js';
import { collect, slices } from '../testing/byte-streams.js';

const key = randomBytes(32);
const otherKey = randomBytes(32);

async function encryptStream(
  data: Buffer,
  opts: { chunkSize?: number; compress?: boolean; salt?: Buffer; noncePrefix?: Buffer } = {},
): Promise<Buffer> {
  const { stream } = createEncryptor({ masterKey: key, ...opts });
  const c = collect();
  await pipeline(slices(data), stream, c.sink);
  return c.data();
}

async function decryptStream(file: Buffer, k = key): Promise<Buffer> {
  const { stream } = createDecryptor(k);
  const c = collect();
  await pipeline(slices(file), stream, c.sink);
  return c.data();
}

/** Byte comparison without jest's element-by-element diff (slow on megabytes). */
function expectSame(actual: Buffer, expected: Buffer): void {
  expect(actual.length).toBe(expected.length);
  expect(actual.equals(expected)).toBe(true);
}

function codeOf(fn: () => unknown): CofferFormatErrorCode | 'ok' {
  try {
    fn();
    return 'ok';
  } catch (e) {
    if (e instanceof CofferFormatError) return e.code;
    throw e;
  }
}

describe('chunked encryption', () => {
  it.each([0, 1, 15, 16, 17, 32, 100, 4096])(
    'round-trips %i bytes at chunk size 16, streamed in odd slices',
    async (n) => {
      const data = randomBytes(n);
      const file = await encryptStream(data, { chunkSize: 16, compress: false });
      expect(file.length).toBe(
        HEADER_LENGTH + n + Math.max(1, Math.ceil(n / 16)) * (CHUNK_HEADER_LENGTH + TAG_LENGTH),
      );
      expectSame(await decryptStream(file), data);
      expectSame(decryptPayload(file, key).payload, data);
    },
  );

  it('produces the same bytes streamed or in one buffer (salt and nonce prefix fixed)', async () => {
    const data = randomBytes(200_000);
    const fixed = { salt: randomBytes(32), noncePrefix: randomBytes(7), chunkSize: 1000 };
    const streamed = await encryptStream(data, { ...fixed, compress: false });
    expectSame(streamed, encryptPayload(data, { masterKey: key, compression: Compression.None, ...fixed }));
  });

  it('seals the chunks of one write into one piece, holding back the last chunk until the end', async () => {
    const t = new EncryptTransform({ masterKey: key, chunkSize: 1000, compression: Compression.None });
    const pieces: Buffer[] = [];
    t.on('data', (b: Buffer) => pieces.push(b));
    const ended = new Promise((r) => t.on('end', r));
    const data = randomBytes(10_000);
    t.write(data); // ten full chunks: nine can be sealed, the tenth may be the final one
    t.end();
    await ended;
    const sealed = CHUNK_HEADER_LENGTH + 1000 + TAG_LENGTH;
    expect(pieces.map((p) => p.length)).toEqual([HEADER_LENGTH, 9 * sealed, sealed]);
    expectSame(decryptPayload(Buffer.concat(pieces), key).payload, data);
  });

  it('uses a fresh salt and nonce prefix per file', () => {
    const a = encryptPayload(Buffer.from('same'), { masterKey: key });
    const b = encryptPayload(Buffer.from('same'), { masterKey: key });
    expect(a.subarray(12, 51)).not.toEqual(b.subarray(12, 51));
    expect(a.subarray(51, 67)).toEqual(keyFingerprint(key));
  });

  it('compresses with zstd before encrypting and restores the original', async () => {
    const data = Buffer.from('{"a":1,"b":"some repeated text"}\n'.repeat(50_000));
    const file = await encryptStream(data);
    expect(file[7]).toBe(Compression.Zstd);
    expect(file.length).toBeLessThan(data.length / 20);
    expectSame(await decryptStream(file), data);
  });

  it('handles an empty raw input end to end (zstd of nothing)', async () => {
    const file = await encryptStream(Buffer.alloc(0));
    expect(await decryptStream(file)).toEqual(Buffer.alloc(0));
  });

  it('applies backpressure instead of buffering when the reader stops', async () => {
    const { stream } = createEncryptor({ masterKey: key, compress: false });
    let accepted = 0;
    const block = randomBytes(64 * 1024);
    while (stream.write(block)) {
      accepted += block.length;
      if (accepted > 64 * 1024 * 1024) break;
    }
    expect(accepted).toBeLessThan(4 * 1024 * 1024);
    stream.destroy();
  });

  it('rejects a wrong key with both fingerprints in the message', () => {
    const file = encryptPayload(Buffer.from('x'), { masterKey: key });
    expect(() => decryptPayload(file, otherKey)).toThrow(
      `This backup was encrypted with a different key (fingerprint ${keyFingerprint(key).toString('hex')}, agent key ${keyFingerprint(otherKey).toString('hex')}).`,
    );
  });

  it('never accepts a file with any single bit flipped', () => {
    const file = encryptPayload(randomBytes(50), {
      masterKey: key,
      chunkSize: 16,
      compression: Compression.None,
    });
    for (let i = 0; i < file.length; i++) {
      for (const bit of [0x01, 0x80]) {
        const bad = Buffer.from(file);
        bad[i] = bad[i]! ^ bit;
        expect(codeOf(() => decryptPayload(bad, key))).not.toBe('ok');
      }
    }
  });

  it('never accepts a truncated file, and says truncated once past the magic', () => {
    const file = encryptPayload(randomBytes(50), {
      masterKey: key,
      chunkSize: 16,
      compression: Compression.None,
    });
    for (let n = 0; n < file.length; n++) {
      const code = codeOf(() => decryptPayload(file.subarray(0, n), key));
      expect(code).toBe(n < 6 ? 'NOT_COFFER' : 'TRUNCATED');
    }
  });

  it('names the chunk that is corrupt, swapped chunks included', () => {
    const file = encryptPayload(randomBytes(64), {
      masterKey: key,
      chunkSize: 16,
      compression: Compression.None,
    });
    const size = CHUNK_HEADER_LENGTH + 16 + TAG_LENGTH;
    const c = (i: number) => file.subarray(HEADER_LENGTH + i * size, HEADER_LENGTH + (i + 1) * size);
    const swapped = Buffer.concat([file.subarray(0, HEADER_LENGTH), c(0), c(2), c(1), c(3)]);
    try {
      decryptPayload(swapped, key);
      throw new Error('accepted');
    } catch (e) {
      expect((e as CofferFormatError).code).toBe('CORRUPT_CHUNK');
      expect((e as CofferFormatError).details.chunk).toBe(1);
      expect((e as Error).message).toBe(
        `Chunk 1 (at byte ${HEADER_LENGTH + size}) is corrupt: it failed authentication (the file is corrupt or was altered).`,
      );
    }
  });

  it('rejects appended bytes, a dropped final chunk, a foreign file and an unknown version', () => {
    const file = encryptPayload(randomBytes(40), {
      masterKey: key,
      chunkSize: 16,
      compression: Compression.None,
    });
    expect(codeOf(() => decryptPayload(Buffer.concat([file, Buffer.from('x')]), key))).toBe('TRAILING_DATA');
    expect(codeOf(() => decryptPayload(Buffer.concat([file, file]), key))).toBe('TRAILING_DATA');
    expect(codeOf(() => decryptPayload(file.subarray(0, HEADER_LENGTH + 2 * 36), key))).toBe('TRUNCATED');
    expect(codeOf(() => decryptPayload(Buffer.from('PK\x03\x04 a zip file, not a backup'), key))).toBe(
      'NOT_COFFER',
    );
    const v3 = Buffer.from(file);
    v3[6] = 3;
    expect(codeOf(() => decryptPayload(v3, key))).toBe('UNSUPPORTED_VERSION');
  });

  it('refuses a length word larger than the chunk size before buffering it', () => {
    const t = new EncryptTransform({ masterKey: key, chunkSize: 16 });
    const bad = Buffer.concat([t.header, Buffer.from([0x7f, 0xff, 0xff, 0xff])]);
    expect(codeOf(() => decryptPayload(bad, key))).toBe('CORRUPT_CHUNK');
  });
});

describe('verifyFile and decryptFile', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), 'coffer-verify-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, data: Buffer) => {
    const p = path.join(dir, name);
    writeFileSync(p, data);
    return p;
  };

  it('verifies a good file and reports its shape', async () => {
    const data = randomBytes(300_000);
    const p = write('good.coffer', await encryptStream(data, { compress: false }));
    const r = await verifyFile(p, key);
    expect(r).toMatchObject({
      fingerprint: keyFingerprint(key).toString('hex'),
      compression: 'none',
      chunkSize: 65536,
      chunks: 5,
      payloadBytes: data.length,
    });
  });

  it.each<[string, (f: Buffer) => Buffer, CofferFormatErrorCode]>([
    ['bit flip', (f) => ((f[f.length - 100] = f[f.length - 100]! ^ 4), f), 'CORRUPT_CHUNK'],
    ['truncation', (f) => f.subarray(0, f.length - 1000), 'TRUNCATED'],
    ['appended bytes', (f) => Buffer.concat([f, Buffer.alloc(10)]), 'TRAILING_DATA'],
    ['not a Coffer file', () => Buffer.from('hello'), 'NOT_COFFER'],
  ])('rejects %s', async (name, mutate, code) => {
    const file = await encryptStream(randomBytes(200_000));
    const p = write(`${name}.coffer`, mutate(Buffer.from(file)));
    await expect(verifyFile(p, key)).rejects.toMatchObject({ code });
  });

  it('rejects the wrong key', async () => {
    const p = write('k.coffer', await encryptStream(randomBytes(10)));
    await expect(verifyFile(p, otherKey)).rejects.toMatchObject({ code: 'WRONG_KEY' });
  });

  it('decrypts to a 0600 file only after verifying, and leaves nothing behind on failure', async () => {
    const data = Buffer.from('archive bytes '.repeat(10_000));
    const p = write('d.coffer', await encryptStream(data));
    const out = path.join(dir, 'd.archive');
    const r = await decryptFile(p, out, key);
    expect(r.outputBytes).toBe(data.length);
    expectSame(readFileSync(out), data);
    expect(statSync(out).mode & 0o777).toBe(0o600);

    const bad = readFileSync(p);
    const q = write('bad.coffer', bad.subarray(0, bad.length - 1));
    const out2 = path.join(dir, 'bad.archive');
    await expect(decryptFile(q, out2, key)).rejects.toMatchObject({ code: 'TRUNCATED' });
    expect(() => statSync(out2)).toThrow();
  });
});
