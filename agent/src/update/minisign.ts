// Release signatures in minisign's format (https://jedisct1.github.io/minisign/), made and checked
// with node:crypto: Ed25519 over the BLAKE2b-512 of the file (minisign's default, prehashed 'ED'
// mode), plus a global signature over that signature and the trusted comment. The real `minisign`
// tool verifies what this writes and this verifies what it writes (minisign.test.ts), so a release
// can be signed offline with either. Only the prehashed mode is accepted: one way to check, the one
// install.sh repeats with openssl.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';

const PREHASHED = Buffer.from('ED');
const KEY_ALGORITHM = Buffer.from('Ed');
const ID_BYTES = 8;
/** The DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32-byte key follows (how openssl wants it). */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export type SignatureProblem = 'unsigned' | 'malformed' | 'unknown-key' | 'bad-signature';

export class SignatureError extends Error {
  override readonly name = 'SignatureError';
  constructor(
    readonly problem: SignatureProblem,
    message: string,
  ) {
    super(message);
  }
}

export interface PublicKey {
  /** The 8-byte key id that signatures name. */
  id: Buffer;
  raw: Buffer;
  key: KeyObject;
  /** The key as minisign writes it (base64 of 'Ed', id, key): what COFFER_RELEASE_PUBLIC_KEYS holds. */
  text: string;
}

/** minisign shows a key id as the hex of its little-endian number. */
export const keyIdText = (id: Buffer): string => Buffer.from(id).reverse().toString('hex').toUpperCase();

const ed25519Public = (raw: Buffer): KeyObject =>
  createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });

/** Reads a public key: the base64 line, or a whole minisign .pub file (comment line first). */
export function parsePublicKey(text: string): PublicKey {
  const line = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('untrusted comment:'))[0];
  const bytes = Buffer.from(line ?? '', 'base64');
  if (bytes.length !== 42 || !bytes.subarray(0, 2).equals(KEY_ALGORITHM) || bytes.toString('base64') !== line)
    throw new Error('not a minisign Ed25519 public key (expected the base64 line of a .pub file, RWQ…)');
  const raw = bytes.subarray(2 + ID_BYTES);
  return { id: bytes.subarray(2, 2 + ID_BYTES), raw, key: ed25519Public(raw), text: line! };
}

/** A list of public keys (separated by commas, spaces or newlines), as the build takes them. */
export function parsePublicKeys(list: string): PublicKey[] {
  return list
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(parsePublicKey);
}

/** The key as openssl reads it (`openssl pkeyutl -pubin -inkey`): base64 of its SubjectPublicKeyInfo. */
export const spkiBase64 = (key: PublicKey): string =>
  Buffer.concat([SPKI_PREFIX, key.raw]).toString('base64');

export interface SecretKey {
  id: Buffer;
  key: KeyObject;
  public: PublicKey;
}

/**
 * A secret key from its PKCS#8 PEM (what `openssl genpkey -algorithm ed25519` writes). Its key id is
 * derived from the public key, so the PEM alone is the whole key.
 */
export function secretKeyFromPem(pem: string): SecretKey {
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the release key must be an Ed25519 key');
  const publicKey = createPublicKey(privateKey);
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const id = createHash('sha256').update(raw).digest().subarray(0, ID_BYTES);
  const text = Buffer.concat([KEY_ALGORITHM, id, raw]).toString('base64');
  return { id, key: privateKey, public: { id, raw, key: publicKey, text } };
}

/** A new key pair: the secret as PKCS#8 PEM, the public key as a minisign .pub file. */
export function generateKeyPair(): { secretPem: string; publicFile: string; key: SecretKey } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const secretPem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const key = secretKeyFromPem(secretPem);
  return { secretPem, publicFile: publicKeyFile(key.public), key };
}

export const publicKeyFile = (key: PublicKey): string =>
  `untrusted comment: minisign public key ${keyIdText(key.id)}\n${key.text}\n`;

const blake2b512 = (data: Buffer) => createHash('blake2b512').update(data).digest();

/** The .minisig text for `message`; the trusted comment is signed too (one line, no newline). */
export function signMessage(message: Buffer, secret: SecretKey, trustedComment: string): string {
  if (/[\r\n]/.test(trustedComment)) throw new Error('the trusted comment must be one line');
  const signature = sign(null, blake2b512(message), secret.key);
  const global = sign(null, Buffer.concat([signature, Buffer.from(trustedComment)]), secret.key);
  return [
    `untrusted comment: signature from the Coffer release key ${keyIdText(secret.id)}`,
    Buffer.concat([PREHASHED, secret.id, signature]).toString('base64'),
    `trusted comment: ${trustedComment}`,
    global.toString('base64'),
    '',
  ].join('\n');
}

/**
 * Checks `signatureFile` (the .minisig text) over `message` with whichever trusted key it names.
 * Returns the key and the trusted comment; a SignatureError says what is wrong otherwise.
 */
export function verifyMessage(
  message: Buffer,
  signatureFile: string,
  trusted: readonly PublicKey[],
  what = 'the file',
): { key: PublicKey; trustedComment: string } {
  const lines = signatureFile.split(/\r?\n/);
  const sig = Buffer.from(lines[1] ?? '', 'base64');
  const comment = lines[2]?.match(/^trusted comment: (.*)$/)?.[1];
  const global = Buffer.from(lines[3] ?? '', 'base64');
  if (sig.length !== 2 + ID_BYTES + 64 || comment === undefined || global.length !== 64)
    throw new SignatureError('malformed', `the signature of ${what} is not a minisign signature`);
  if (!sig.subarray(0, 2).equals(PREHASHED))
    throw new SignatureError(
      'malformed',
      `the signature of ${what} is not in minisign's prehashed (ED) form, the only one accepted`,
    );
  const id = sig.subarray(2, 2 + ID_BYTES);
  const key = trusted.find((k) => k.id.equals(id));
  if (!key)
    throw new SignatureError(
      'unknown-key',
      `${what} is signed by the key ${keyIdText(id)}, which this agent does not trust (it trusts ${trusted.map((k) => keyIdText(k.id)).join(', ') || 'no key'})`,
    );
  const signature = sig.subarray(2 + ID_BYTES);
  if (
    !verify(null, blake2b512(message), key.key, signature) ||
    !verify(null, Buffer.concat([signature, Buffer.from(comment)]), key.key, global)
  )
    throw new SignatureError(
      'bad-signature',
      `the signature of ${what} does not verify with the release key ${keyIdText(id)}: the file was changed after it was signed`,
    );
  return { key, trustedComment: comment };
}
