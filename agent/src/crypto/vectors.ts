// Builds docs/test-vectors/coffer-v1.json and coffer-v2.json from fixed inputs. The vectors freeze
// the encrypted payload (for zstd vectors, the compressed bytes), so a different zstd build never
// changes them.
import zlib from 'node:zlib';
import { encryptPayload } from './encrypt.js';
import { decryptArchive } from './decrypt.js';
import { CofferFormatError, type CofferFormatErrorCode } from './errors.js';
import {
  Compression,
  deriveFileKey,
  HEADER_LENGTH,
  keyFingerprint,
  CHUNK_HEADER_LENGTH,
  TAG_LENGTH,
} from './format.js';
import { encodeKey } from './key.js';
import { encodeRecord, sha256Hex, type RecordNamespace } from './record.js';

export interface ValidVector {
  name: string;
  description: string;
  masterKey: string; // hex
  masterKeyText: string; // coffer-key-v1 form
  salt: string;
  noncePrefix: string;
  chunkSize: number;
  compression: 'none' | 'zstd';
  fingerprint: string;
  fileKey: string;
  payload: string; // the bytes that are chunked and encrypted
  plaintext: string; // the original data (payload after decompression)
  file: string;
  /** Version 2: the binding in the header. */
  label?: string;
  backupId?: string;
  /** Version 2: the sealed record's exact plaintext (UTF-8 JSON), hex. */
  record?: string;
}

export interface InvalidVector {
  name: string;
  description: string;
  masterKey: string;
  file: string;
  error: CofferFormatErrorCode;
}

export interface VectorFile {
  format: 'coffer-v1' | 'coffer-v2';
  note: string;
  valid: ValidVector[];
  invalid: InvalidVector[];
}

const range = (start: number, n: number) =>
  Buffer.from(Array.from({ length: n }, (_, i) => (start + i) & 0xff));

export const VECTOR_KEY = range(0x00, 32);
export const VECTOR_OTHER_KEY = range(0x40, 32);
const SALT = range(0xa0, 32);
const PREFIX = range(0xf0, 7);

interface Input {
  name: string;
  description: string;
  plaintext: Buffer;
  compression: Compression;
  chunkSize: number;
  /** Version 2 only: what the sealed record lists (the vectors' plaintext is not a real archive). */
  namespaces?: RecordNamespace[];
}

const LABEL = 'shop-prod';
const BACKUP_ID = '65a1b2c3d4e5f60718293a4b';

const INPUTS_V2: Input[] = [
  {
    name: 'empty',
    description:
      'Version 2, empty archive (a backup of an empty database): one empty final chunk, then the record.',
    plaintext: Buffer.alloc(0),
    compression: Compression.None,
    chunkSize: 65536,
    namespaces: [],
  },
  {
    name: 'three-chunks',
    description: 'Version 2, chunk size 16, 40 bytes: chunks of 16, 16 and a final 8, then the record.',
    plaintext: Buffer.from('0123456789abcdefghijklmnopqrstuvwxyzABCD', 'utf8'),
    compression: Compression.None,
    chunkSize: 16,
    namespaces: [{ ns: 'shop.orders', documents: 3 }],
  },
  {
    name: 'zstd',
    description: 'Version 2, zstd payload, chunk size 32; the record describes the decompressed archive.',
    plaintext: Buffer.from(
      '{"collection":"orders","n":1}\n'.repeat(20) + 'Coffer: compress, then encrypt.\n',
      'utf8',
    ),
    compression: Compression.Zstd,
    chunkSize: 32,
    namespaces: [
      { ns: 'shop.orders', documents: 20 },
      { ns: 'shop.customers', documents: 0 },
    ],
  },
];

const INPUTS: Input[] = [
  {
    name: 'empty',
    description: 'Empty payload: one final chunk with no plaintext, only the tag.',
    plaintext: Buffer.alloc(0),
    compression: Compression.None,
    chunkSize: 65536,
  },
  {
    name: 'one-chunk',
    description: 'Short payload that fits in one (final) chunk.',
    plaintext: Buffer.from('Coffer test vector: one chunk.', 'utf8'),
    compression: Compression.None,
    chunkSize: 65536,
  },
  {
    name: 'three-chunks',
    description: 'Chunk size 16, 40 bytes: chunks of 16, 16 and a final 8.',
    plaintext: Buffer.from('0123456789abcdefghijklmnopqrstuvwxyzABCD', 'utf8'),
    compression: Compression.None,
    chunkSize: 16,
  },
  {
    name: 'exact-multiple',
    description: 'Chunk size 16, 32 bytes: the final chunk is full (16), never an extra empty chunk.',
    plaintext: Buffer.from('exactly thirty-two bytes long!!!', 'utf8'),
    compression: Compression.None,
    chunkSize: 16,
  },
  {
    name: 'zstd',
    description: 'zstd-compressed payload (as backups are), chunk size 32; decompress after decrypting.',
    plaintext: Buffer.from(
      '{"collection":"orders","n":1}\n'.repeat(20) + 'Coffer: compress, then encrypt.\n',
      'utf8',
    ),
    compression: Compression.Zstd,
    chunkSize: 32,
  },
];

function zstd(data: Buffer): Buffer {
  return zlib.zstdCompressSync(data, {
    params: { [zlib.constants.ZSTD_c_compressionLevel]: 3, [zlib.constants.ZSTD_c_checksumFlag]: 1 },
  });
}

/** Encrypts a vector's payload with the vector's fixed salt and nonce prefix (and binding and record). */
export function encryptVector(
  v: Pick<
    ValidVector,
    | 'masterKey'
    | 'salt'
    | 'noncePrefix'
    | 'chunkSize'
    | 'compression'
    | 'payload'
    | 'label'
    | 'backupId'
    | 'record'
  >,
): Buffer {
  const bound = v.label !== undefined && v.backupId !== undefined;
  return encryptPayload(Buffer.from(v.payload, 'hex'), {
    masterKey: Buffer.from(v.masterKey, 'hex'),
    salt: Buffer.from(v.salt, 'hex'),
    noncePrefix: Buffer.from(v.noncePrefix, 'hex'),
    chunkSize: v.chunkSize,
    compression: v.compression === 'zstd' ? Compression.Zstd : Compression.None,
    ...(bound
      ? {
          binding: { label: v.label!, backupId: v.backupId! },
          recordBytes: () => Buffer.from(v.record ?? '', 'hex'),
        }
      : {}),
  });
}

function valid(input: Input): ValidVector {
  const payload = input.compression === Compression.Zstd ? zstd(input.plaintext) : input.plaintext;
  const bound = input.namespaces
    ? {
        label: LABEL,
        backupId: BACKUP_ID,
        record: encodeRecord({
          archiveBytes: input.plaintext.length,
          archiveSha256: sha256Hex(input.plaintext),
          namespaces: input.namespaces,
        }).toString('hex'),
      }
    : {};
  const v = {
    name: input.name,
    description: input.description,
    masterKey: VECTOR_KEY.toString('hex'),
    masterKeyText: encodeKey(VECTOR_KEY),
    salt: SALT.toString('hex'),
    noncePrefix: PREFIX.toString('hex'),
    chunkSize: input.chunkSize,
    compression: input.compression === Compression.Zstd ? ('zstd' as const) : ('none' as const),
    fingerprint: keyFingerprint(VECTOR_KEY).toString('hex'),
    fileKey: deriveFileKey(VECTOR_KEY, SALT).toString('hex'),
    payload: payload.toString('hex'),
    plaintext: input.plaintext.toString('hex'),
    file: '',
    ...bound,
  };
  v.file = encryptVector(v).toString('hex');
  return v;
}

function errorCode(file: Buffer, key: Buffer): CofferFormatErrorCode | undefined {
  try {
    decryptArchive(file, key);
    return undefined;
  } catch (e) {
    if (e instanceof CofferFormatError) return e.code;
    throw e;
  }
}

function invalid(base: ValidVector): InvalidVector[] {
  const file = Buffer.from(base.file, 'hex');
  const full = CHUNK_HEADER_LENGTH + base.chunkSize + TAG_LENGTH; // one non-final chunk
  const c0 = HEADER_LENGTH;
  const c1 = c0 + full;
  const c2 = c1 + full;
  const mutate = (f: (b: Buffer) => Buffer) => f(Buffer.from(file));
  const flip = (at: number, bit = 1) => mutate((b) => ((b[at] = b[at]! ^ bit), b));
  const cases: Array<[string, string, Buffer, Buffer?]> = [
    ['bad-magic', 'First byte changed: not a Coffer file.', flip(0, 0x20)],
    ['unsupported-version', 'Version byte set to 3 (no such version).', mutate((b) => ((b[6] = 3), b))],
    ['wrong-key', 'Decrypted with a different master key: the fingerprint differs.', file, VECTOR_OTHER_KEY],
    [
      'header-salt-flipped',
      'One bit of the salt changed: the file key and the AAD change, chunk 0 fails.',
      flip(12),
    ],
    [
      'header-fingerprint-flipped',
      'One bit of the fingerprint changed: reported as a different key.',
      flip(51),
    ],
    [
      'chunk1-ciphertext-flipped',
      'One bit of chunk 1 ciphertext changed.',
      flip(c1 + CHUNK_HEADER_LENGTH + 3),
    ],
    ['chunk0-tag-flipped', 'One bit of chunk 0 tag changed.', flip(c1 - 1)],
    [
      'chunk0-marked-final',
      'Final flag set on chunk 0: its length word no longer fits a final chunk, or the nonce differs.',
      flip(c0, 0x80),
    ],
    [
      'chunks-swapped',
      'Chunks 0 and 1 exchanged.',
      Buffer.concat([file.subarray(0, c0), file.subarray(c1, c2), file.subarray(c0, c1), file.subarray(c2)]),
    ],
    [
      'truncated-at-chunk-boundary',
      'Final chunk removed: the file ends after a non-final chunk.',
      file.subarray(0, c2),
    ],
    ['truncated-inside-chunk', 'Last byte removed.', file.subarray(0, file.length - 1)],
    ['truncated-header', 'Only the first 40 bytes.', file.subarray(0, 40)],
    ['trailing-data', 'One byte appended after the final chunk.', Buffer.concat([file, Buffer.from([0])])],
  ];
  return toInvalid(cases);
}

type Case = [name: string, description: string, file: Buffer, key?: Buffer];

function toInvalid(cases: Case[]): InvalidVector[] {
  return cases.map(([name, description, f, key]) => {
    const k = key ?? VECTOR_KEY;
    const error = errorCode(f, k);
    if (!error) throw new Error(`invalid vector ${name} decrypts`);
    return { name, description, masterKey: k.toString('hex'), file: f.toString('hex'), error };
  });
}

/** Mutations of version 2 "three-chunks": the binding, the record and their framing. */
function invalidV2(base: ValidVector): InvalidVector[] {
  const file = Buffer.from(base.file, 'hex');
  const h = HEADER_LENGTH + 2 + Buffer.byteLength(base.label!) + Buffer.byteLength(base.backupId!);
  const full = CHUNK_HEADER_LENGTH + base.chunkSize + TAG_LENGTH;
  const c2 = h + 2 * full;
  const record = c2 + CHUNK_HEADER_LENGTH + 8 + TAG_LENGTH; // the final chunk holds 8 bytes
  const mutate = (f: (b: Buffer) => Buffer) => f(Buffer.from(file));
  const flip = (at: number, bit = 1) => mutate((b) => ((b[at] = b[at]! ^ bit), b));
  const resealed = (recordBytes: Buffer) => encryptVector({ ...base, record: recordBytes.toString('hex') });
  const cases: Case[] = [
    [
      'label-flipped',
      'One bit of the bound label changed: the AAD changes, chunk 0 fails.',
      flip(HEADER_LENGTH + 1),
    ],
    ['backup-id-flipped', 'One bit of the bound backup id changed: chunk 0 fails.', flip(h - 1)],
    [
      'label-length-changed',
      'The label length byte lowered by one: the header is read differently and no chunk fits.',
      mutate((b) => ((b[HEADER_LENGTH] = b[HEADER_LENGTH]! - 1), b)),
    ],
    [
      'version-set-to-1',
      'Version byte set to 1: read as a version 1 file, the binding is taken for a chunk.',
      mutate((b) => ((b[6] = 1), b)),
    ],
    ['wrong-key', 'Decrypted with a different master key.', file, VECTOR_OTHER_KEY],
    [
      'chunk1-ciphertext-flipped',
      'One bit of chunk 1 ciphertext changed.',
      flip(h + full + CHUNK_HEADER_LENGTH + 3),
    ],
    [
      'record-ciphertext-flipped',
      'One bit of the sealed record changed.',
      flip(record + CHUNK_HEADER_LENGTH),
    ],
    ['record-tag-flipped', "One bit of the record's tag changed.", flip(file.length - 1)],
    [
      'record-removed',
      'The sealed record removed: the file ends after its final chunk.',
      file.subarray(0, record),
    ],
    [
      'record-truncated',
      'Last byte removed: the file ends inside the record.',
      file.subarray(0, file.length - 1),
    ],
    [
      'final-chunk-removed',
      'The final chunk removed, the record kept: the record is read where a chunk must be.',
      Buffer.concat([file.subarray(0, c2), file.subarray(record)]),
    ],
    ['trailing-data', 'One byte appended after the sealed record.', Buffer.concat([file, Buffer.from([0])])],
    [
      'record-digest-mismatch',
      'Sealed with the key, but the record gives the SHA-256 of other data: the archive does not match it.',
      resealed(
        encodeRecord({
          archiveBytes: Buffer.from(base.plaintext, 'hex').length,
          archiveSha256: sha256Hex(Buffer.from('other data')),
          namespaces: [],
        }),
      ),
    ],
    [
      'record-length-mismatch',
      'Sealed with the key, but the record gives another archive length.',
      resealed(
        encodeRecord({
          archiveBytes: Buffer.from(base.plaintext, 'hex').length + 1,
          archiveSha256: sha256Hex(Buffer.from(base.plaintext, 'hex')),
          namespaces: [],
        }),
      ),
    ],
    [
      'record-not-json',
      'Sealed with the key, but the record is not JSON.',
      resealed(Buffer.from('not json')),
    ],
  ];
  return toInvalid(cases);
}

export function buildVectorFileV2(): VectorFile {
  const validVectors = INPUTS_V2.map(valid);
  const base = validVectors.find((v) => v.name === 'three-chunks')!;
  return {
    format: 'coffer-v2',
    note: 'All byte strings are lowercase hex. See docs/encryption-format.md. Version 2: label, backupId and the sealed record (its exact plaintext) are given. Invalid vectors are mutations of "three-chunks" and must be rejected with the error named.',
    valid: validVectors,
    invalid: invalidV2(base),
  };
}

export function buildVectorFile(): VectorFile {
  const validVectors = INPUTS.map(valid);
  const base = validVectors.find((v) => v.name === 'three-chunks')!;
  return {
    format: 'coffer-v1',
    note: 'All byte strings are lowercase hex. See docs/encryption-format.md. Invalid vectors are mutations of "three-chunks" and must be rejected with the error named.',
    valid: validVectors,
    invalid: invalid(base),
  };
}
