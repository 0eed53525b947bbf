// The Coffer encrypted file format (versions 1 and 2): constants, header layout, key derivation and
// nonces. docs/encryption-format.md is the normative description; keep the two in step.
import { hkdfSync, timingSafeEqual } from 'node:crypto';
import { CofferFormatError } from './errors.js';

export const MAGIC = Buffer.from('COFFER', 'ascii');
/** Version 1: no binding, no sealed record (read as before; written only without a binding). */
export const FORMAT_V1 = 1;
/** Version 2: the header binds the database label and backup id; a sealed record follows the chunks. */
export const FORMAT_V2 = 2;
/** What the agent writes when it knows the label and backup id (every backup it makes). */
export const FORMAT_VERSION = FORMAT_V2;
/** Length of a version 1 header, and of the fixed part every version's header starts with. */
export const HEADER_LENGTH = 67;
/** A binding's label and backup id are each 1..255 bytes of UTF-8, after a one-byte length. */
export const MAX_BINDING_FIELD = 255;
/** The sealed record's plaintext, at most (a reader checks before buffering it). */
export const MAX_RECORD_LENGTH = 16 * 1024 * 1024;
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

/** What a version 2 file is: a backup of this database label, with this backup id. */
export interface Binding {
  label: string;
  backupId: string;
}

export interface Header {
  version: number;
  compression: Compression;
  chunkSize: number;
  salt: Buffer;
  noncePrefix: Buffer;
  fingerprint: Buffer;
  /** Version 2 only. */
  binding?: Binding;
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

/** The last nonce byte: 0x00 a chunk, 0x01 the final chunk, 0x02 the sealed record (version 2). */
const NONCE_CHUNK = 0;
const NONCE_FINAL = 1;
const NONCE_RECORD = 2;

function nonce(noncePrefix: Buffer, index: number, kind: number): Buffer {
  const out = Buffer.alloc(12);
  noncePrefix.copy(out, 0);
  out.writeUInt32BE(index, NONCE_PREFIX_LENGTH);
  out[11] = kind;
  return out;
}

/** 12-byte GCM nonce: noncePrefix (7) || chunk index (uint32 big-endian) || final flag (0x00 or 0x01). */
export function chunkNonce(noncePrefix: Buffer, index: number, final: boolean): Buffer {
  return nonce(noncePrefix, index, final ? NONCE_FINAL : NONCE_CHUNK);
}

/** The sealed record's nonce: noncePrefix || uint32(number of chunks) || 0x02, unlike any chunk's. */
export function recordNonce(noncePrefix: Buffer, chunks: number): Buffer {
  return nonce(noncePrefix, chunks, NONCE_RECORD);
}

function bindingField(value: string, what: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length < 1 || bytes.length > MAX_BINDING_FIELD)
    throw new RangeError(`the ${what} must be 1 to ${MAX_BINDING_FIELD} bytes`);
  return Buffer.concat([Buffer.from([bytes.length]), bytes]);
}

export function encodeHeader(h: Header): Buffer {
  const fixed = encodeFixedHeader(h);
  if (h.version === FORMAT_V1) return fixed;
  if (!h.binding) throw new RangeError(`a version ${h.version} header needs a binding`);
  return Buffer.concat([
    fixed,
    bindingField(h.binding.label, 'database label'),
    bindingField(h.binding.backupId, 'backup id'),
  ]);
}

function encodeFixedHeader(h: Header): Buffer {
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
 * How many bytes the header has, as far as `bytes` (its beginning) tells: 67 for version 1; for
 * version 2 it grows as the two length bytes arrive. Once `bytes.length` reaches the answer, the
 * answer is final. Checks magic and version (throws as parseHeader does).
 */
export function headerLength(bytes: Buffer): number {
  checkMagicAndVersion(bytes);
  if (bytes.length < HEADER_LENGTH || bytes[OFF_VERSION] === FORMAT_V1) return HEADER_LENGTH;
  if (bytes.length < HEADER_LENGTH + 1) return HEADER_LENGTH + 1;
  const labelEnd = HEADER_LENGTH + 1 + bytes[HEADER_LENGTH]!;
  if (bytes.length < labelEnd + 1) return labelEnd + 1;
  return labelEnd + 1 + bytes[labelEnd]!;
}

function checkMagicAndVersion(bytes: Buffer): void {
  const magicPart = bytes.subarray(0, Math.min(bytes.length, MAGIC.length));
  if (!magicPart.equals(MAGIC.subarray(0, magicPart.length)) || bytes.length < MAGIC.length) {
    throw new CofferFormatError('NOT_COFFER', 'This is not a Coffer backup file (no COFFER header).');
  }
  if (bytes.length < OFF_VERSION + 1) {
    throw new CofferFormatError('TRUNCATED', 'The file is truncated: it ends inside the header.');
  }
  const version = bytes[OFF_VERSION]!;
  if (version !== FORMAT_V1 && version !== FORMAT_V2) {
    throw new CofferFormatError(
      'UNSUPPORTED_VERSION',
      `This backup uses Coffer format version ${version}; this agent reads versions ${FORMAT_V1} and ${FORMAT_V2}. Upgrade coffer-agent.`,
    );
  }
}

/**
 * Parses and checks a header. `bytes` may be shorter than the header when the input ended early;
 * the error then says whether it was a Coffer file at all.
 */
export function parseHeader(bytes: Buffer): Header {
  const length = headerLength(bytes);
  const version = bytes[OFF_VERSION]!;
  if (bytes.length < length) {
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
    ...(version === FORMAT_V2 ? { binding: parseBinding(bytes.subarray(HEADER_LENGTH, length)) } : {}),
  };
}

/** label_length (1) || label || backup_id_length (1) || backup_id; both UTF-8, 1..255 bytes. */
function parseBinding(bytes: Buffer): Binding {
  const labelLength = bytes[0]!;
  const label = bytes.subarray(1, 1 + labelLength);
  const backupId = bytes.subarray(2 + labelLength);
  const text = (b: Buffer) => new TextDecoder('utf-8', { fatal: true }).decode(b);
  try {
    if (label.length === 0 || backupId.length === 0) throw new Error('empty');
    return { label: text(label), backupId: text(backupId) };
  } catch {
    throw new CofferFormatError(
      'BAD_HEADER',
      'The file header is corrupt: its database label or backup id is empty or not UTF-8.',
    );
  }
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
