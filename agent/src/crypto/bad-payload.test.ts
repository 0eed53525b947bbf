// Files whose every chunk authenticates but whose payload is not whole zstd (only a writer bug can
// make one): every reader reports BAD_PAYLOAD, never a crash, never a silent end, and leaves no
// partial output. Built with the real encrypt primitives, under a valid key.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { createDecryptor, decryptArchive } from './decrypt.js';
import { encryptPayload } from './encrypt.js';
import { Compression } from './format.js';
import { generateMasterKey } from './key.js';
import { encodeRecord, sha256Hex } from './record.js';
import { decryptFile, verifyFile } from './verify.js';

const key = generateMasterKey();
let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-bad-payload-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** 3 MB that compress, in two zstd frames (as the agent writes them: one per 2 MiB). */
const archive = Buffer.from(
  Array.from({ length: 60_000 }, (_, i) => `{"_id":${i},"city":"Lyon","n":${(i * 7919) % 1000}}\n`).join(''),
);
const frame = (b: Buffer) =>
  zlib.zstdCompressSync(b, { params: { [zlib.constants.ZSTD_c_checksumFlag]: 1 } });
const frames = Buffer.concat([frame(archive.subarray(0, 2 << 20)), frame(archive.subarray(2 << 20))]);
const first = frame(archive.subarray(0, 2 << 20)).length;

const payloads: Array<[string, Buffer, RegExp]> = [
  ['not zstd at all', Buffer.from('this is a mongodump archive, not zstd '.repeat(3000)), /does not start/],
  ['a zstd stream cut inside its first frame', frames.subarray(0, first - 1000), /ends inside frame 1/],
  [
    'a zstd stream cut inside its second frame',
    frames.subarray(0, frames.length - 10),
    /ends inside frame 2/,
  ],
  [
    'a zstd frame whose content is damaged',
    (() => {
      const f = Buffer.from(frames);
      f[first + 200]! ^= 0xff;
      return f;
    })(),
    /zstd data is invalid/,
  ],
];

/** Version 1 and version 2 (bound, with the record of the archive it should have held). */
function sealed(payload: Buffer, version: 1 | 2): Buffer {
  return encryptPayload(payload, {
    masterKey: key,
    compression: Compression.Zstd,
    chunkSize: 64 * 1024,
    ...(version === 2
      ? {
          binding: { label: 'shop', backupId: 'aaaaaaaaaaaaaaaaaaaaaaaa' },
          recordBytes: () =>
            encodeRecord({ archiveBytes: archive.length, archiveSha256: sha256Hex(archive), namespaces: [] }),
        }
      : {}),
  });
}

describe.each([1, 2] as const)('version %i: an authenticated payload that is not whole zstd', (version) => {
  it.each(payloads)('%s: BAD_PAYLOAD from every reader, nothing left behind', async (_name, payload, why) => {
    const file = path.join(dir, 'b.coffer');
    writeFileSync(file, sealed(payload, version));
    const bad = { code: 'BAD_PAYLOAD', message: expect.stringMatching(why) };

    // The streaming decryptor, fed in 64 KiB pieces as from a file.
    let out = 0;
    const sink = new Writable({ write: (c: Buffer, _e, cb) => ((out += c.length), cb()) });
    const read = Readable.from(
      (function* () {
        const f = sealed(payload, version);
        for (let at = 0; at < f.length; at += 65_536) yield f.subarray(at, at + 65_536);
      })(),
    );
    await expect(pipeline(read, createDecryptor(key).stream, sink)).rejects.toMatchObject(bad);
    expect(out).toBeLessThan(archive.length);

    await expect(verifyFile(file, key, { archive: true })).rejects.toMatchObject(bad);
    await expect(decryptFile(file, path.join(dir, 'out.archive'), key)).rejects.toMatchObject(bad);
    expect(readdirSync(dir)).toEqual(['b.coffer']); // no output, no hidden .partial file
    expect(() => decryptArchive(sealed(payload, version), key)).toThrow(
      expect.objectContaining({ code: 'BAD_PAYLOAD' }),
    );
  });

  it('while the same frames, whole, decrypt to the whole archive (every frame is read)', async () => {
    const file = path.join(dir, 'b.coffer');
    writeFileSync(file, sealed(frames, version));
    const r = await decryptFile(file, path.join(dir, 'out.archive'), key);
    expect(r.outputBytes).toBe(archive.length);
    expect(decryptArchive(sealed(frames, version), key).archive.equals(archive)).toBe(true);
  });
});
