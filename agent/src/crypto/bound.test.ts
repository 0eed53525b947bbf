// Format version 2: the header binds label and backup id, a sealed record follows the final chunk.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDecryptor, decryptArchive, decryptPayload } from './decrypt.js';
import { createEncryptor, encryptPayload, type EncryptorOptions } from './encrypt.js';
import { Compression, HEADER_LENGTH } from './format.js';
import { encodeRecord } from './record.js';
import { decryptFile, verifyFile } from './verify.js';
import { through } from '../testing/byte-streams.js';

const key = randomBytes(32);
const binding = { label: 'shop-prod', backupId: '65a1b2c3d4e5f60718293a4b' };
const namespaces = [
  { ns: 'shop.orders', documents: 12 },
  { ns: 'shop.empty', documents: 0 },
];

async function encryptBound(data: Buffer, opts: Partial<EncryptorOptions> = {}): Promise<Buffer> {
  return through(
    createEncryptor({ masterKey: key, binding, namespaces: () => namespaces, ...opts }).stream,
    data,
  );
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
};

describe('bound files (format version 2)', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), 'coffer-bound-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, data: Buffer) => {
    const p = path.join(dir, name);
    writeFileSync(p, data);
    return p;
  };

  it.each([
    ['zstd, several chunks', randomBytes(150_000), true],
    ['no compression', Buffer.from('x'.repeat(70_000)), false],
    ['an empty archive', Buffer.alloc(0), true],
  ])(
    'round-trips %s: the same archive out, the binding and the record authenticated',
    async (_n, data, compress) => {
      const file = await encryptBound(data, { compress });
      expect(file[6]).toBe(2);
      const { stream, decrypt } = createDecryptor(key);
      const out = await through(stream, file);
      expect(out.equals(data)).toBe(true); // the record is not part of the archive
      expect(decrypt.result!.header.binding).toEqual(binding);
      expect(decrypt.result!.record).toEqual({
        archiveBytes: data.length,
        archiveSha256: sha256(data),
        namespaces,
      });
      const verified = await verifyFile(write('ok.coffer', file), key);
      expect(verified).toMatchObject({ version: 2, binding, record: { archiveBytes: data.length } });
    },
  );

  it('writes version 1, without binding or record, when no binding is given', async () => {
    const data = randomBytes(1000);
    const file = await through(createEncryptor({ masterKey: key }).stream, data);
    expect(file[6]).toBe(1);
    const opened = decryptArchive(file, key);
    expect(opened.archive.equals(data)).toBe(true);
    expect(opened.header.binding).toBeUndefined();
    expect(opened.record).toBeUndefined();
  });

  it('detects a changed binding: the header is every chunk’s AAD', async () => {
    const file = await encryptBound(randomBytes(100_000));
    const labelAt = HEADER_LENGTH + 1;
    const otherLabel = Buffer.from(file);
    otherLabel.write('shop-test', labelAt, 'utf8'); // same length, another label
    expect(codeOf(() => decryptPayload(otherLabel, key))).toBe('CORRUPT_CHUNK');
    const idAt = labelAt + binding.label.length + 1;
    const otherId = Buffer.from(file);
    otherId.write('65a1b2c3d4e5f60718293a4c', idAt, 'utf8');
    expect(codeOf(() => decryptPayload(otherId, key))).toBe('CORRUPT_CHUNK');
    await expect(verifyFile(write('label.coffer', otherLabel), key)).rejects.toMatchObject({
      code: 'CORRUPT_CHUNK',
      details: { chunk: 0 },
    });
  });

  it('a header taken from another bound file of the same key makes every chunk fail', async () => {
    const a = await encryptBound(randomBytes(10_000));
    const b = await through(
      createEncryptor({ masterKey: key, binding: { ...binding, label: 'other-db' }, namespaces: () => [] })
        .stream,
      randomBytes(10_000),
    );
    const headerB = b.subarray(0, HEADER_LENGTH + 2 + 'other-db'.length + binding.backupId.length);
    const bodyA = a.subarray(HEADER_LENGTH + 2 + binding.label.length + binding.backupId.length);
    expect(codeOf(() => decryptPayload(Buffer.concat([headerB, bodyA]), key))).toBe('CORRUPT_CHUNK');
  });

  it('refuses a file without its sealed record, or with the record altered or followed by data', async () => {
    const data = randomBytes(5000);
    const withRecord = await encryptBound(data, { compress: false });
    const recordLength = encodeRecord({
      archiveBytes: data.length,
      archiveSha256: sha256(data),
      namespaces,
    }).length;
    const stripped = withRecord.subarray(0, withRecord.length - (4 + recordLength + 16));
    expect(codeOf(() => decryptPayload(stripped, key))).toBe('TRUNCATED');
    const flipped = Buffer.from(withRecord);
    flipped[flipped.length - 20] = flipped[flipped.length - 20]! ^ 1;
    expect(codeOf(() => decryptPayload(flipped, key))).toBe('CORRUPT_CHUNK');
    expect(codeOf(() => decryptPayload(Buffer.concat([withRecord, Buffer.from([0])]), key))).toBe(
      'TRAILING_DATA',
    );
    const asV1 = Buffer.from(withRecord);
    asV1[6] = 1; // a downgrade: the binding is read as a chunk and the AAD changes
    expect(codeOf(() => decryptPayload(asV1, key))).toBe('CORRUPT_CHUNK');
  });

  it('detects an archive that does not match its record, and writes no output for it', async () => {
    const data = Buffer.from('the archive '.repeat(5000));
    const lying = encryptPayload(data, {
      masterKey: key,
      compression: Compression.None,
      binding,
      recordBytes: () =>
        encodeRecord({ archiveBytes: data.length, archiveSha256: sha256(Buffer.from('else')), namespaces }),
    });
    const p = write('lying.coffer', lying);
    await expect(verifyFile(p, key)).resolves.toMatchObject({ version: 2 }); // authentic...
    await expect(verifyFile(p, key, { archive: true })).rejects.toMatchObject({ code: 'BAD_RECORD' });
    const out = path.join(dir, 'lying.archive');
    await expect(decryptFile(p, out, key)).rejects.toMatchObject({ code: 'BAD_RECORD' }); // ...but wrong
    expect(() => statSync(out)).toThrow();
    await expect(through(createDecryptor(key).stream, lying)).rejects.toMatchObject({ code: 'BAD_RECORD' });

    const shorter = encryptPayload(data, {
      masterKey: key,
      compression: Compression.None,
      binding,
      recordBytes: () =>
        encodeRecord({ archiveBytes: data.length - 1, archiveSha256: sha256(data), namespaces }),
    });
    expect(codeOf(() => decryptArchive(shorter, key))).toBe('BAD_RECORD');
    const notJson = encryptPayload(data, {
      masterKey: key,
      compression: Compression.None,
      binding,
      recordBytes: () => Buffer.from('{"archiveBytes":'),
    });
    expect(codeOf(() => decryptPayload(notJson, key))).toBe('BAD_RECORD');
  });
});
