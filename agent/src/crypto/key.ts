// The agent's 256-bit master key and its text form (`coffer-key-v1:<base64url>`), as written by
// `coffer-agent key export` and read by `key import`, the config file and docs/decrypt_coffer.py.
import { randomBytes } from 'node:crypto';
import { fingerprintHex, MASTER_KEY_LENGTH } from './format.js';

export const KEY_PREFIX = 'coffer-key-v1:';

export class KeyFormatError extends Error {
  override readonly name = 'KeyFormatError';
}

export function generateMasterKey(): Buffer {
  return randomBytes(MASTER_KEY_LENGTH);
}

/** `coffer-key-v1:` followed by the 32 key bytes in unpadded base64url (43 characters). */
export function encodeKey(key: Buffer): string {
  if (key.length !== MASTER_KEY_LENGTH)
    throw new KeyFormatError(`a master key is ${MASTER_KEY_LENGTH} bytes`);
  return KEY_PREFIX + key.toString('base64url');
}

/** Parses the one-line form; rejects anything that is not exactly a v1 key. */
export function decodeKey(text: string): Buffer {
  const s = text.trim();
  if (!s.startsWith(KEY_PREFIX))
    throw new KeyFormatError(`not a Coffer key (expected a line starting with "${KEY_PREFIX}")`);
  const b64 = s.slice(KEY_PREFIX.length);
  if (!/^[A-Za-z0-9_-]{43}$/.test(b64))
    throw new KeyFormatError('the key is damaged: expected 43 base64url characters after the prefix');
  const key = Buffer.from(b64, 'base64url');
  if (key.length !== MASTER_KEY_LENGTH || key.toString('base64url') !== b64)
    throw new KeyFormatError('the key is damaged: it does not decode to 32 bytes');
  return key;
}

/** The key file: comment lines (`#`), including the fingerprint as a check, and the key line. */
export function keyFileText(key: Buffer): string {
  return [
    '# Coffer agent master key. Anyone holding this file can decrypt your backups;',
    '# without it no backup can be decrypted. Store it offline, apart from the backups.',
    `# fingerprint: ${fingerprintHex(key)}`,
    encodeKey(key),
    '',
  ].join('\n');
}

/**
 * Reads a key file: blank lines and `#` comments are ignored, exactly one key line is required;
 * a `# fingerprint:` comment, when present, must match the key (catches a mistyped copy).
 */
export function parseKeyFile(text: string): Buffer {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  const keyLines = lines.filter((l) => l && !l.startsWith('#'));
  if (keyLines.length !== 1) {
    throw new KeyFormatError(
      keyLines.length === 0
        ? `no key found (expected a line starting with "${KEY_PREFIX}")`
        : 'the key file has more than one key line',
    );
  }
  const key = decodeKey(keyLines[0]!);
  const fpLine = lines.find((l) => /^#\s*fingerprint:/i.test(l));
  if (fpLine) {
    const stated = fpLine
      .replace(/^#\s*fingerprint:\s*/i, '')
      .trim()
      .toLowerCase();
    if (stated !== fingerprintHex(key)) {
      throw new KeyFormatError(
        `the key does not match the fingerprint written beside it (${stated}); the copy is damaged`,
      );
    }
  }
  return key;
}
