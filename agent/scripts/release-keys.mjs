// The release keys of a build (docs/releases.md), and signing a built release.
//
//   node scripts/release-keys.mjs generate FILE   a new Ed25519 key: FILE (secret, PKCS#8 PEM, 0600)
//                                                 and FILE.pub (minisign public key)
//   node scripts/release-keys.mjs sign DIR        sign DIR/SHA256SUMS with COFFER_RELEASE_SECRET_KEY_FILE
//                                                 (DIR/SHA256SUMS.minisig), on the offline signing machine
//
// A build takes the keys it trusts from COFFER_RELEASE_PUBLIC_KEYS (one or two minisign public
// keys) and signs with COFFER_RELEASE_SECRET_KEY_FILE when that is given. With neither (a local
// run, CI) it makes a development key once under .coffer-data/release-keys/ and says so: agents
// built that way trust only that key, never a production one.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const agentDir = path.resolve(import.meta.dirname, '..');
// From the compiled agent (`tsc -b` runs first): the one implementation of the format.
const minisign = createRequire(import.meta.url)(path.join(agentDir, 'dist/update/minisign.js'));
const log = (msg) => process.stderr.write(`[release keys] ${msg}\n`);

export const DEV_KEY_FILE = path.resolve(agentDir, '..', '.coffer-data', 'release-keys', 'dev-release.key');
export const SUMS = 'SHA256SUMS';
export const SIGNATURE = 'SHA256SUMS.minisig';
/** Two at once: the current key and the one taking over (or being retired). */
const MAX_TRUSTED = 2;

function generate(file) {
  const { secretPem, publicFile, key } = minisign.generateKeyPair();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, secretPem, { mode: 0o600, flag: 'wx' });
  fs.writeFileSync(`${file}.pub`, publicFile, { flag: 'wx' });
  return key;
}

const readSecret = (file) => minisign.secretKeyFromPem(fs.readFileSync(file, 'utf8'));

/**
 * What a build uses: `trusted` (the public keys built into the agent and the installers) and
 * `signer` (the secret key that signs SHA256SUMS, or undefined: signed later, offline).
 */
export function resolveReleaseKeys(env = process.env) {
  const secretFile = env.COFFER_RELEASE_SECRET_KEY_FILE;
  const publicList = env.COFFER_RELEASE_PUBLIC_KEYS?.trim();
  let signer;
  let trusted;
  if (!secretFile && !publicList) {
    if (!fs.existsSync(DEV_KEY_FILE)) {
      generate(DEV_KEY_FILE);
      log(
        `made a development release key in ${DEV_KEY_FILE} (production builds take theirs from outside the tree: docs/releases.md)`,
      );
    }
    log(`signing with the development release key ${DEV_KEY_FILE}; agents built now trust only that key`);
    signer = readSecret(DEV_KEY_FILE);
    trusted = [signer.public];
  } else {
    if (secretFile) signer = readSecret(secretFile);
    trusted = publicList ? minisign.parsePublicKeys(publicList) : [signer.public];
  }
  if (trusted.length > MAX_TRUSTED)
    throw new Error(
      `COFFER_RELEASE_PUBLIC_KEYS names ${trusted.length} keys; at most ${MAX_TRUSTED} (the current one and the next)`,
    );
  if (signer && !trusted.some((k) => k.id.equals(signer.id)))
    throw new Error(
      `the secret key ${minisign.keyIdText(signer.id)} is not among COFFER_RELEASE_PUBLIC_KEYS: agents built now could not check what it signs`,
    );
  if (!signer)
    log(
      `no COFFER_RELEASE_SECRET_KEY_FILE: ${SUMS} stays unsigned until it is signed offline (docs/releases.md)`,
    );
  return { trusted, signer };
}

/** The keys as install.sh takes them: "<key id hex>:<base64 SubjectPublicKeyInfo>" separated by spaces. */
export const installerKeys = (trusted) =>
  trusted.map((k) => `${k.id.toString('hex')}:${minisign.spkiBase64(k)}`).join(' ');

/** Writes DIR/SHA256SUMS.minisig and checks it with the trusted keys, as an agent will. */
export function signRelease(dir, signer, trusted, version) {
  const sums = fs.readFileSync(path.join(dir, SUMS));
  const comment = `timestamp:${Math.floor(Date.now() / 1000)}\tfile:${SUMS}\tcoffer-agent ${version}`;
  const signature = minisign.signMessage(sums, signer, comment);
  minisign.verifyMessage(sums, signature, trusted, SUMS);
  fs.writeFileSync(path.join(dir, SIGNATURE), signature);
}

if (import.meta.filename === path.resolve(process.argv[1] ?? '')) {
  const [command, arg] = process.argv.slice(2);
  if (command === 'generate' && arg) {
    const key = generate(path.resolve(arg));
    process.stdout.write(`${key.public.text}\n`);
    log(`secret key: ${arg} (keep it offline); public key: ${arg}.pub, id ${minisign.keyIdText(key.id)}`);
  } else if (command === 'sign' && arg) {
    const file = process.env.COFFER_RELEASE_SECRET_KEY_FILE;
    if (!file) throw new Error('set COFFER_RELEASE_SECRET_KEY_FILE to the secret release key');
    const signer = readSecret(file);
    const release = JSON.parse(fs.readFileSync(path.join(arg, 'release.json'), 'utf8'));
    signRelease(arg, signer, [signer.public], release.version);
    log(`signed ${path.join(arg, SUMS)} with ${minisign.keyIdText(signer.id)}: ${path.join(arg, SIGNATURE)}`);
  } else {
    process.stderr.write('usage: release-keys.mjs generate FILE | sign DIR\n');
    process.exit(2);
  }
}
