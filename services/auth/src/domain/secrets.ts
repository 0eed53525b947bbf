import crypto from 'node:crypto';
import { hash, verify, Algorithm } from '@node-rs/argon2';

/** argon2id with OWASP's recommended minimum cost (19 MiB, 2 passes). */
const ARGON2 = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const hashPassword = (password: string) => hash(password, ARGON2);
export const verifyPassword = (passwordHash: string, password: string) =>
  verify(passwordHash, password).catch(() => false);

/** A random opaque token for URLs and keys (256 bits). */
export const randomToken = () => crypto.randomBytes(32).toString('base64url');

/** Reset tokens are stored as their SHA-256: a leaked database cannot be used to reset passwords. */
export const hashResetToken = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/** AES-256-GCM with a random IV: iv ‖ tag ‖ ciphertext, base64. For values their owner may see again. */
export function sealer(key: Buffer) {
  return {
    seal(plain: string): string {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    unseal(sealed: string): string {
      const raw = Buffer.from(sealed, 'base64');
      const decipher = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/** A 256-bit key for one purpose, derived with HKDF-SHA256 from a secret setting. */
export const deriveKey = (secret: string, salt: string, label: string) =>
  Buffer.from(crypto.hkdfSync('sha256', secret, salt, label, 32));

/**
 * API keys: looked up by an HMAC keyed with the server's pepper, and kept sealed with AES-256-GCM
 * so the owner can see theirs again; never stored in clear.
 */
export function apiKeyVault(pepper: string) {
  const macKey = deriveKey(pepper, 'coffer-api-key', 'lookup');
  const { seal, unseal } = sealer(deriveKey(pepper, 'coffer-api-key', 'seal'));
  return {
    generate: () => `cof_${randomToken()}`,
    lookupHash: (apiKey: string) => crypto.createHmac('sha256', macKey).update(apiKey).digest('hex'),
    seal,
    unseal,
  };
}
export type ApiKeyVault = ReturnType<typeof apiKeyVault>;

/** Lower-cases and trims an e-mail so lookups and the unique index are case-insensitive. */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();
