import crypto from 'node:crypto';
import { normaliseSecondFactorCode, RECOVERY_CODE_COUNT } from '@coffer/contracts';
import { deriveKey, sealer } from './secrets.js';

const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'; // no l, o, 0, 1: nothing to misread

/**
 * The secrets of two-factor sign-in at rest: TOTP secrets sealed with AES-256-GCM and recovery
 * codes kept as HMACs, both under keys derived from TOTP_ENCRYPTION_KEY, so a copy of the database
 * alone neither yields a secret nor lets anyone test recovery-code guesses offline.
 */
export function twoFactorVault(encryptionKey: string) {
  const { seal, unseal } = sealer(deriveKey(encryptionKey, 'coffer-2fa', 'totp-secret'));
  const macKey = deriveKey(encryptionKey, 'coffer-2fa', 'recovery-code');
  return {
    seal,
    unseal,
    recoveryHash: (code: string) =>
      crypto.createHmac('sha256', macKey).update(normaliseSecondFactorCode(code)).digest('hex'),
    /** Ten fresh codes as shown once to their owner (xxxxx-xxxxx, 50 random bits each). */
    newRecoveryCodes(): string[] {
      return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
        const c = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[crypto.randomInt(32)]).join('');
        return `${c.slice(0, 5)}-${c.slice(5)}`;
      });
    },
  };
}
export type TwoFactorVault = ReturnType<typeof twoFactorVault>;
