// docs/decrypt_coffer.py is an independent decryptor written from docs/encryption-format.md.
// It must decrypt the test vectors and fresh files from this implementation, and refuse the
// invalid vectors, so the document really is enough to read a backup without Coffer.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createEncryptor } from './encrypt.js';
import { generateMasterKey, keyFileText } from './key.js';
import type { VectorFile } from './vectors.js';

const ROOT = path.resolve(__dirname, '../../..');
const SCRIPT = path.join(ROOT, 'docs/decrypt_coffer.py');
const load = (version: string) =>
  JSON.parse(readFileSync(path.join(ROOT, `docs/test-vectors/coffer-${version}.json`), 'utf8')) as VectorFile;
const vectors = {
  valid: [...load('v1').valid, ...load('v2').valid],
  invalid: [...load('v1').invalid, ...load('v2').invalid],
};
const named = (vs: VectorFile['valid']) => vs.map((v) => [`${v.label ? 'v2' : 'v1'} ${v.name}`, v] as const);

const probe = spawnSync('python3', ['-c', 'import cryptography, zstandard'], { encoding: 'utf8' });
const pythonReady = probe.status === 0;
if (!pythonReady) {
  console.warn(
    'SKIPPED docs/decrypt_coffer.py interop tests: python3 with the cryptography and zstandard packages is not available ' +
      `(${probe.error?.message ?? probe.stderr.trim()}). Install them: pip install cryptography zstandard`,
  );
}
const describePython = pythonReady ? describe : describe.skip;

describePython('docs/decrypt_coffer.py', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-py-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function decrypt(
    file: Buffer,
    key: Buffer,
  ): { status: number | null; out: Buffer | undefined; stderr: string } {
    const n = randomBytes(4).toString('hex');
    const input = path.join(dir, `${n}.coffer`);
    const keyFile = path.join(dir, `${n}.key`);
    const output = path.join(dir, `${n}.archive`);
    writeFileSync(input, file);
    writeFileSync(keyFile, keyFileText(key));
    const r = spawnSync('python3', [SCRIPT, '--key-file', keyFile, input, output], { encoding: 'utf8' });
    let out: Buffer | undefined;
    try {
      out = readFileSync(output);
    } catch {
      out = undefined;
    }
    return { status: r.status, out, stderr: r.stderr };
  }

  it.each(named(vectors.valid))('decrypts valid vector %s to its plaintext', (_n, v) => {
    const r = decrypt(Buffer.from(v.file, 'hex'), Buffer.from(v.masterKey, 'hex'));
    // A version 2 file's binding is printed; version 1 has none.
    expect(r.stderr).toBe(v.label ? `bound to database label '${v.label}', backup id '${v.backupId}'\n` : '');
    expect(r.status).toBe(0);
    expect(r.out!.toString('hex')).toBe(v.plaintext);
  });

  it.each(
    vectors.invalid.map((v, i) => [`${i < load('v1').invalid.length ? 'v1' : 'v2'} ${v.name}`, v] as const),
  )('refuses invalid vector %s with the same error code', (_n, v) => {
    const r = decrypt(Buffer.from(v.file, 'hex'), Buffer.from(v.masterKey, 'hex'));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`[${v.error}]`);
    expect(r.out).toBeUndefined();
  });

  it('decrypts a fresh multi-megabyte zstd file from the streaming encryptor', async () => {
    const key = generateMasterKey();
    const text = Buffer.from(
      Array.from({ length: 40_000 }, (_, i) => `{"_id":${i},"name":"customer ${i}","n":${i * 7}}\n`).join(''),
    );
    const data = Buffer.concat([text, randomBytes(1_500_000), text]);
    const parts: Buffer[] = [];
    const { stream } = createEncryptor({ masterKey: key, chunkSize: 64 * 1024 });
    await pipeline(
      Readable.from([data.subarray(0, 1000), data.subarray(1000)]),
      stream,
      new Writable({ write: (c: Buffer, _e, cb) => (parts.push(c), cb()) }),
    );
    const r = decrypt(Buffer.concat(parts), key);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.out!.length).toBe(data.length);
    expect(r.out!.equals(data)).toBe(true);
  }, 60_000);

  it('decrypts a fresh bound (version 2) file and checks it against its sealed record', async () => {
    const key = generateMasterKey();
    const data = Buffer.concat([randomBytes(300_000), Buffer.from('tail '.repeat(50_000))]);
    const parts: Buffer[] = [];
    const binding = { label: 'shop', backupId: 'aaaaaaaaaaaaaaaaaaaaaaaa' };
    const { stream } = createEncryptor({
      masterKey: key,
      binding,
      namespaces: () => [{ ns: 'shop.a', documents: 1 }],
    });
    await pipeline(
      Readable.from([data]),
      stream,
      new Writable({ write: (c: Buffer, _e, cb) => (parts.push(c), cb()) }),
    );
    const r = decrypt(Buffer.concat(parts), key);
    expect(r.stderr).toBe("bound to database label 'shop', backup id 'aaaaaaaaaaaaaaaaaaaaaaaa'\n");
    expect(r.status).toBe(0);
    expect(r.out!.equals(data)).toBe(true);
  }, 60_000);

  it('says which key the file needs when given the wrong one', async () => {
    const key = generateMasterKey();
    const parts: Buffer[] = [];
    const { stream } = createEncryptor({ masterKey: key });
    await pipeline(
      Readable.from([Buffer.from('x')]),
      stream,
      new Writable({ write: (c: Buffer, _e, cb) => (parts.push(c), cb()) }),
    );
    const r = decrypt(Buffer.concat(parts), generateMasterKey());
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/\[WRONG_KEY\]: this backup was encrypted with a different key/);
  });
});
