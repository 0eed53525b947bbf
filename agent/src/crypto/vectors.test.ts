import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { decryptArchive, decryptPayload } from './decrypt.js';
import { CofferFormatError } from './errors.js';
import { deriveFileKey, keyFingerprint } from './format.js';
import { decodeKey } from './key.js';
import { buildVectorFile, buildVectorFileV2, encryptVector, type VectorFile } from './vectors.js';

const VECTORS = {
  v1: { file: path.resolve(__dirname, '../../../docs/test-vectors/coffer-v1.json'), build: buildVectorFile },
  v2: {
    file: path.resolve(__dirname, '../../../docs/test-vectors/coffer-v2.json'),
    build: buildVectorFileV2,
  },
};

// `COFFER_WRITE_VECTORS=v2 npx jest agent/src/crypto/vectors.test.ts` regenerates a file (`1`:
// both), only when the format changes on purpose: the checked-in files are the contract.
for (const [version, v] of Object.entries(VECTORS)) {
  const write = process.env.COFFER_WRITE_VECTORS;
  if (write === '1' || write === version) writeFileSync(v.file, JSON.stringify(v.build(), null, 2) + '\n');
}

const hex = (s: string) => Buffer.from(s, 'hex');
const load = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as VectorFile;

describe.each([
  ['v1', ['empty', 'one-chunk', 'three-chunks', 'exact-multiple', 'zstd'], 10],
  ['v2', ['empty', 'three-chunks', 'zstd'], 12],
] as const)('docs/test-vectors/coffer-%s.json', (version, names, invalidCount) => {
  const vectors = load(VECTORS[version].file);

  it('has the vectors the format doc promises', () => {
    expect(vectors.valid.map((v) => v.name)).toEqual(names);
    expect(vectors.invalid.length).toBeGreaterThanOrEqual(invalidCount);
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
      const { archive, header, record } = decryptArchive(hex(v.file), hex(v.masterKey));
      expect(archive.toString('hex')).toBe(v.plaintext);
      expect(header.version).toBe(version === 'v1' ? 1 : 2);
      if (version === 'v2') {
        expect(header.binding).toEqual({ label: v.label, backupId: v.backupId });
        expect(record).toEqual(JSON.parse(hex(v.record!).toString('utf8')));
      } else {
        expect(header.binding).toBeUndefined();
        expect(record).toBeUndefined();
      }
    });
  });

  it.each(vectors.invalid.map((v) => [v.name, v] as const))(
    'invalid vector %s is rejected with its error',
    (_name, v) => {
      let caught: unknown;
      try {
        decryptArchive(hex(v.file), hex(v.masterKey));
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(CofferFormatError);
      expect((caught as CofferFormatError).code).toBe(v.error);
    },
  );

  it('matches what the current code generates (apart from zstd bytes, which are frozen)', () => {
    const fresh = VECTORS[version].build();
    const strip = (f: VectorFile) => ({
      ...f,
      valid: f.valid.map((v) => (v.compression === 'zstd' ? { ...v, payload: '', file: '' } : v)),
      invalid: f.invalid,
    });
    expect(strip(fresh)).toEqual(strip(vectors));
  });
});
