// The Coffer v1 encrypted file format: constants, header layout, key derivation and nonces.
// docs/encryption-format.md is the normative description; keep the two in step.
import { hkdfSync, timingSafeEqual } from 'node:crypto';
import { CofferFormatError } from './errors.js';

export const MAGIC = Buffer.from('COFFER', 'ascii');
export const FORMAT_VERSION = 1;
export const HEADER_LENGTH = 67;
export const SALT_LENGTH = 32;
export const NONCE_PREFIX_LENGTH = 7;
export const FINGERPRINT_LENGTH = 16;
export const MASTER_KEY_LENGTH = 32;
export const TAG_LENGTH = 16;
export const CHUNK_HEADER_LENGTH = 4;
export const DEFAULT_CHUNK_SIZE = 64 * 1024;
export const MAX_CHUNK_SIZE = 16 * 1024 * 1024;
/** The chunk counter is a 32-bit field; chunk indexes run 0 .. 2^32 - 1. */
export const MAX_CHUNKS = 2 ** 32;
/** Bit 31 of a chunk's length word marks the final chunk; bits 0-30 hold the plaintext length. */
export const FINAL_FLAG = 0x8000_0000;

export const FILE_KEY_INFO = 'coffer-v1 file-key';
export const FINGERPRINT_INFO = 'coffer-v1 key-fingerprint';

export enum Compression {
  None = 0,
  Zstd = 1,
}

export interface Header {
  version: number;
  compression: Compression;
  chunkSize: number;
  salt: Buffer;
  noncePrefix: Buffer;
  fingerprint: Buffer;
}

// Byte offsets inside the 67-byte header.
const OFF_VERSION = 6;
const OFF_COMPRESSION = 7;
const OFF_CHUNK_SIZE = 8;
const OFF_SALT = 12;
const OFF_NONCE_PREFIX = OFF_SALT + SALT_LENGTH; // 44
const OFF_FINGERPRINT = OFF_NONCE_PREFIX + NONCE_PREFIX_LENGTH; // 51

export function assertMasterKey(key: Buffer): void {
  if (!Buffer.isBuffer(key) || key.length !== MASTER_KEY_LENGTH) {
    throw new TypeError(`master key must be ${MASTER_KEY_LENGTH} bytes`);
  }
}

/** One-way identifier of a master key: HKDF-SHA256(masterKey, no salt, "coffer-v1 key-fingerprint", 16). */
export function keyFingerprint(masterKey: Buffer): Buffer {
  assertMasterKey(masterKey);
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), FINGERPRINT_INFO, FINGERPRINT_LENGTH));
}

/** The fingerprint as users and the service see it: 32 lowercase hex characters. */
export function fingerprintHex(masterKeyOrFingerprint: Buffer): string {
  const fp =
    masterKeyOrFingerprint.length === FINGERPRINT_LENGTH
      ? masterKeyOrFingerprint
      : keyFingerprint(masterKeyOrFingerprint);
  return fp.toString('hex');
}

/** Per-file AES-256-GCM key: HKDF-SHA256(masterKey, header salt, "coffer-v1 file-key", 32). */
export function deriveFileKey(masterKey: Buffer, salt: Buffer): Buffer {
  assertMasterKey(masterKey);
  return Buffer.from(hkdfSync('sha256', masterKey, salt, FILE_KEY_INFO, 32));
}

/** 12-byte GCM nonce: noncePrefix (7) || chunk index (uint32 big-endian) || final flag (0x00 or 0x01). */
export function chunkNonce(noncePrefix: Buffer, index: number, final: boolean): Buffer {
  const nonce = Buffer.alloc(12);
  noncePrefix.copy(nonce, 0);
  nonce.writeUInt32BE(index, NONCE_PREFIX_LENGTH);
  nonce[11] = final ? 1 : 0;
  return nonce;
}

export function encodeHeader(h: Header): Buffer {
  const out = Buffer.alloc(HEADER_LENGTH);
  MAGIC.copy(out, 0);
  out[OFF_VERSION] = h.version;
  out[OFF_COMPRESSION] = h.compression;
  out.writeUInt32BE(h.chunkSize, OFF_CHUNK_SIZE);
  h.salt.copy(out, OFF_SALT);
  h.noncePrefix.copy(out, OFF_NONCE_PREFIX);
  h.fingerprint.copy(out, OFF_FINGERPRINT);
  return out;
}

export function validChunkSize(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= MAX_CHUNK_SIZE;
}

/**
 * Parses and checks a header. `bytes` may be shorter than the header when the input ended early;
 * the error then says whether it was a Coffer file at all.
 */
export function parseHeader(bytes: Buffer): Header {
  const magicPart = bytes.subarray(0, Math.min(bytes.length, MAGIC.length));
  if (!magicPart.equals(MAGIC.subarray(0, magicPart.length)) || bytes.length < MAGIC.length) {
    throw new CofferFormatError('NOT_COFFER', 'This is not a Coffer backup file (no COFFER header).');
  }
  if (bytes.length < OFF_VERSION + 1) {
    throw new CofferFormatError('TRUNCATED', 'The file is truncated: it ends inside the header.');
  }
  const version = bytes[OFF_VERSION]!;
  if (version !== FORMAT_VERSION) {
    throw new CofferFormatError(
      'UNSUPPORTED_VERSION',
      `This backup uses Coffer format version ${version}; this agent reads version ${FORMAT_VERSION}. Upgrade coffer-agent.`,
    );
  }
  if (bytes.length < HEADER_LENGTH) {
    throw new CofferFormatError('TRUNCATED', 'The file is truncated: it ends inside the header.');
  }
  const compression = bytes[OFF_COMPRESSION]!;
  if (compression !== Compression.None && compression !== Compression.Zstd) {
    throw new CofferFormatError(
      'BAD_HEADER',
      `The file header is corrupt: unknown compression ${compression}.`,
    );
  }
  const chunkSize = bytes.readUInt32BE(OFF_CHUNK_SIZE);
  if (!validChunkSize(chunkSize)) {
    throw new CofferFormatError('BAD_HEADER', `The file header is corrupt: invalid chunk size ${chunkSize}.`);
  }
  return {
    version,
    compression,
    chunkSize,
    salt: Buffer.from(bytes.subarray(OFF_SALT, OFF_SALT + SALT_LENGTH)),
    noncePrefix: Buffer.from(bytes.subarray(OFF_NONCE_PREFIX, OFF_NONCE_PREFIX + NONCE_PREFIX_LENGTH)),
    fingerprint: Buffer.from(bytes.subarray(OFF_FINGERPRINT, OFF_FINGERPRINT + FINGERPRINT_LENGTH)),
  };
}

/** Throws WRONG_KEY when the header's fingerprint is not the given key's. */
export function checkFingerprint(header: Header, masterKey: Buffer): void {
  const mine = keyFingerprint(masterKey);
  if (!timingSafeEqual(mine, header.fingerprint)) {
    throw new CofferFormatError(
      'WRONG_KEY',
      `This backup was encrypted with a different key (fingerprint ${header.fingerprint.toString('hex')}, agent key ${mine.toString('hex')}).`,
      { fileFingerprint: header.fingerprint.toString('hex'), keyFingerprint: mine.toString('hex') },
    );
  }
}
