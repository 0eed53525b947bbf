import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { decryptPayload } from './decrypt.js';
import { CofferFormatError } from './errors.js';
import { deriveFileKey, keyFingerprint } from './format.js';
import { decodeKey } from './key.js';
import { buildVectorFile, encryptVector, type VectorFile } from './vectors.js';

const VECTORS = path.resolve(__dirname, '../../../docs/test-vectors/coffer-v1.json');

// `COFFER_WRITE_VECTORS=1 npx jest agent/src/crypto/vectors.test.ts` regenerates the file (only
// when the format changes on purpose; the checked-in file is the contract).
if (process.env.COFFER_WRITE_VECTORS === '1') {
  writeFileSync(VECTORS, JSON.stringify(buildVectorFile(), null, 2) + '\n');
}

const vectors = JSON.parse(readFileSync(VECTORS, 'utf8')) as VectorFile;
const hex = (s: string) => Buffer.from(s, 'hex');

describe('docs/test-vectors/coffer-v1.json', () => {
  it('has the vectors the format doc promises', () => {
    expect(vectors.valid.map((v) => v.name)).toEqual([
      'empty',
      'one-chunk',
      'three-chunks',
      'exact-multiple',
      'zstd',
    ]);
    expect(vectors.invalid.length).toBeGreaterThanOrEqual(10);
  });

  describe.each(vectors.valid.map((v) => [v.name, v] as const))('valid vector %s', (_name, v) => {
    it('derives the documented fingerprint and file key', () => {
      expect(keyFingerprint(hex(v.masterKey)).toString('hex')).toBe(v.fingerprint);
      expect(deriveFileKey(hex(v.masterKey), hex(v.salt)).toString('hex')).toBe(v.fileKey);
      expect(decodeKey(v.masterKeyText).toString('hex')).toBe(v.masterKey);
    });

    it('encrypts to exactly the documented bytes', () => {
      expect(encryptVector(v).toString('hex')).toBe(v.file);
    });

    it('decrypts back to the payload and the plaintext', () => {
      const { payload } = decryptPayload(hex(v.file), hex(v.masterKey));
      expect(payload.toString('hex')).toBe(v.payload);
      const plain = v.compression === 'zstd' ? zlib.zstdDecompressSync(payload) : payload;
      expect(plain.toString('hex')).toBe(v.plaintext);
    });
  });

  it.each(vectors.invalid.map((v) => [v.name, v] as const))(
    'invalid vector %s is rejected with its error',
    (_name, v) => {
      let caught: unknown;
      try {
        decryptPayload(hex(v.file), hex(v.masterKey));
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(CofferFormatError);
      expect((caught as CofferFormatError).code).toBe(v.error);
    },
  );

  it('matches what the current code generates (apart from zstd bytes, which are frozen)', () => {
    const fresh = buildVectorFile();
    const strip = (f: VectorFile) => ({
      ...f,
      valid: f.valid.map((v) => (v.compression === 'zstd' ? { ...v, payload: '', file: '' } : v)),
      invalid: f.invalid,
    });
    expect(strip(fresh)).toEqual(strip(vectors));
  });
});
