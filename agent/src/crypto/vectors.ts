// Builds docs/test-vectors/coffer-v1.json from fixed inputs. The vectors freeze the encrypted
// payload (for zstd vectors, the compressed bytes), so a different zstd build never changes them.
import zlib from 'node:zlib';
import { encryptPayload } from './encrypt.js';
import { decryptPayload } from './decrypt.js';
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
}

export interface InvalidVector {
  name: string;
  description: string;
  masterKey: string;
  file: string;
  error: CofferFormatErrorCode;
}

export interface VectorFile {
  format: 'coffer-v1';
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
}

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

/** Encrypts a vector's payload with the vector's fixed salt and nonce prefix. */
export function encryptVector(
  v: Pick<ValidVector, 'masterKey' | 'salt' | 'noncePrefix' | 'chunkSize' | 'compression' | 'payload'>,
): Buffer {
  return encryptPayload(Buffer.from(v.payload, 'hex'), {
    masterKey: Buffer.from(v.masterKey, 'hex'),
    salt: Buffer.from(v.salt, 'hex'),
    noncePrefix: Buffer.from(v.noncePrefix, 'hex'),
    chunkSize: v.chunkSize,
    compression: v.compression === 'zstd' ? Compression.Zstd : Compression.None,
  });
}

function valid(input: Input): ValidVector {
  const payload = input.compression === Compression.Zstd ? zstd(input.plaintext) : input.plaintext;
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
  };
  v.file = encryptVector(v).toString('hex');
  return v;
}

function errorCode(file: Buffer, key: Buffer): CofferFormatErrorCode | undefined {
  try {
    decryptPayload(file, key);
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
    ['unsupported-version', 'Version byte set to 2.', mutate((b) => ((b[6] = 2), b))],
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
  return cases.map(([name, description, f, key]) => {
    const k = key ?? VECTOR_KEY;
    const error = errorCode(f, k);
    if (!error) throw new Error(`invalid vector ${name} decrypts`);
    return { name, description, masterKey: k.toString('hex'), file: f.toString('hex'), error };
  });
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
