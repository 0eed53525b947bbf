import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** One service's gRPC key pair as the local run keeps it (docs/architecture.md, "Service identity"). */
export interface ServiceKeyFiles {
  /** The private key's file (PKCS#8 PEM, mode 0600): the service's SERVICE_PRIVATE_KEY_FILE. */
  privateKeyFile: string;
  /** The public key, SPKI DER in base64 (one entry of SERVICE_PUBLIC_KEYS). */
  publicKey: string;
}

/**
 * The key pair of each service under `<dataDir>/service-keys/` (folder 0700, files 0600), made on
 * the first start and kept: the services of a local run (and the tests, which may sign calls as
 * one of them) find the same keys on every start.
 */
export function localServiceKeys(dataDir: string, names: readonly string[]): Record<string, ServiceKeyFiles> {
  const dir = path.join(dataDir, 'service-keys');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const keys: Record<string, ServiceKeyFiles> = {};
  for (const name of names) {
    const privateKeyFile = path.join(dir, `${name}.key`);
    const publicKeyFile = path.join(dir, `${name}.pub`);
    if (!fs.existsSync(privateKeyFile) || !fs.existsSync(publicKeyFile)) {
      const pair = generateKeyPairSync('ed25519');
      const pub = pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
      fs.writeFileSync(publicKeyFile, `${pub}\n`, { mode: 0o600 });
      fs.writeFileSync(privateKeyFile, pair.privateKey.export({ format: 'pem', type: 'pkcs8' }), {
        mode: 0o600,
      });
    }
    keys[name] = { privateKeyFile, publicKey: fs.readFileSync(publicKeyFile, 'utf8').trim() };
  }
  return keys;
}

/** SERVICE_PUBLIC_KEYS for these keys: `name=<base64>,...`. */
export const publicKeysOf = (keys: Record<string, ServiceKeyFiles>) =>
  Object.entries(keys)
    .map(([name, k]) => `${name}=${k.publicKey}`)
    .join(',');
