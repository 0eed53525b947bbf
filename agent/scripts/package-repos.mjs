// The APT and YUM repositories the gateway serves under /downloads/apt and /downloads/yum
// (docs/agent-install.md), built beside the packages into the downloads folder:
//
//   apt/dists/stable/{Release,InRelease,Release.gpg}, apt/dists/stable/main/binary-ARCH/Packages(.gz),
//   apt/coffer-archive-keyring.gpg (the key for /etc/apt/keyrings)
//   yum/repodata/ (createrepo_c) with repomd.xml.asc, yum/RPM-GPG-KEY-coffer
//
// APT and dnf check OpenPGP signatures, not minisign, so the repositories have a key of their own:
// an OpenPGP key (docs/releases.md) that signs the repository metadata and each RPM. The packages
// themselves are not copied in: the indexes name them at apt/pool/main/NAME and yum/NAME, which
// the gateway answers with the release's own files (one copy of each in the folder and the image).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const agentDir = path.resolve(import.meta.dirname, '..');
export const DEV_REPO_KEY_FILE = path.resolve(
  agentDir,
  '..',
  '.coffer-data',
  'release-keys',
  'dev-repo-key.asc',
);
const SUITE = 'stable';
const COMPONENT = 'main';
/** Where the indexes say the .deb files are (the gateway serves them there). */
export const APT_POOL = `pool/${COMPONENT}`;
export const APT_KEYRING = 'coffer-archive-keyring.gpg';
export const RPM_KEY = 'RPM-GPG-KEY-coffer';
const log = (msg) => process.stderr.write(`[package repos] ${msg}\n`);

/**
 * The OpenPGP key that signs the repositories: COFFER_REPO_SIGNING_KEY_FILE (an armored secret key
 * without passphrase), else, on a build with no release key configured at all (a developer's
 * machine, CI), a development key made once beside the minisign one. A production build without
 * it leaves the repositories out: an unsigned repository would teach customers to turn checks off.
 */
export function resolveRepoKey(env = process.env) {
  if (!hasCommand('gpg')) {
    log('gpg not found: no APT or YUM repository and no RPM signature (apt-get install gpg)');
    return undefined;
  }
  if (env.COFFER_REPO_SIGNING_KEY_FILE) return fs.readFileSync(env.COFFER_REPO_SIGNING_KEY_FILE, 'utf8');
  if (env.COFFER_RELEASE_PUBLIC_KEYS || env.COFFER_RELEASE_SECRET_KEY_FILE) {
    log('no COFFER_REPO_SIGNING_KEY_FILE: no APT or YUM repository in this build (docs/releases.md)');
    return undefined;
  }
  if (!fs.existsSync(DEV_REPO_KEY_FILE)) {
    withGpg(undefined, (gpg) => {
      gpg([
        '--quick-generate-key',
        'Coffer development packages <packages@coffer.invalid>',
        'rsa3072',
        'sign',
        'never',
      ]);
      fs.mkdirSync(path.dirname(DEV_REPO_KEY_FILE), { recursive: true });
      fs.writeFileSync(DEV_REPO_KEY_FILE, gpg(['--armor', '--export-secret-keys']), { mode: 0o600 });
    });
    log(`made a development package signing key in ${DEV_REPO_KEY_FILE}`);
  }
  return fs.readFileSync(DEV_REPO_KEY_FILE, 'utf8');
}

/**
 * Runs `fn` with a gpg bound to a throw-away home that holds `secretKey` (when given): the key is
 * never imported into anybody's keyring, and the agent gpg starts is stopped afterwards.
 */
export function withGpg(secretKey, fn) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-gpg-'));
  const gpg = (args, input) =>
    execFileSync(
      'gpg',
      [
        '--homedir',
        home,
        '--batch',
        '--yes',
        '--quiet',
        '--pinentry-mode',
        'loopback',
        '--passphrase',
        '',
        ...args,
      ],
      { input, stdio: ['pipe', 'pipe', 'pipe'] },
    );
  try {
    if (secretKey) gpg(['--import'], secretKey);
    const fingerprint = secretKey
      ? gpg(['--with-colons', '--list-secret-keys'])
          .toString()
          .match(/^fpr:+([0-9A-F]{40}):/m)[1]
      : undefined;
    return fn(gpg, { home, fingerprint });
  } finally {
    try {
      execFileSync('gpgconf', ['--homedir', home, '--kill', 'all'], { stdio: 'ignore' });
    } catch {
      // no agent was started
    }
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** Signs each RPM in place with rpmsign (dnf's gpgcheck), before the release lists its hash. */
export function signRpms(files, secretKey) {
  withGpg(secretKey, (_gpg, { home, fingerprint }) => {
    for (const file of files)
      execFileSync(
        'rpmsign',
        [
          '--addsign',
          '--define',
          `_gpg_name ${fingerprint}`,
          '--define',
          `_gpg_path ${home}`,
          // Debian's rpm names gpg2, which Debian no longer ships under that name.
          '--define',
          `__gpg ${execFileSync('sh', ['-c', 'command -v gpg'], { encoding: 'utf8' }).trim()}`,
          '--define',
          "_gpg_sign_cmd_extra_args --batch --pinentry-mode loopback --passphrase ''",
          file,
        ],
        // rpmsign warns that it has no terminal; a failure's message carries what it said.
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
  });
}

/** Builds both repositories into `out` from the packages there; `debs` and `rpms` are file names. */
export function buildRepos({ out, debs, rpms, secretKey }) {
  withGpg(secretKey, (gpg, { fingerprint }) => {
    const sign = (file, args) => gpg(['--local-user', fingerprint, ...args, file]);
    if (debs.length) {
      const apt = path.join(out, 'apt');
      const release = aptRepo(out, apt, debs);
      sign(release, ['--clearsign', '--output', path.join(apt, 'dists', SUITE, 'InRelease')]);
      sign(release, ['--armor', '--detach-sign', '--output', `${release}.gpg`]);
      fs.writeFileSync(path.join(apt, APT_KEYRING), gpg(['--export', fingerprint]));
    }
    if (rpms.length) {
      const yum = path.join(out, 'yum');
      if (!hasCommand('createrepo_c'))
        log('createrepo_c not found: no YUM repository (apt-get install createrepo-c)');
      else {
        fs.mkdirSync(yum, { recursive: true });
        // createrepo_c reads the packages where the metadata will say they are, then they go.
        for (const rpm of rpms) linkInto(path.join(out, rpm), path.join(yum, rpm));
        execFileSync('createrepo_c', ['--quiet', '--no-database', yum], {
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        for (const rpm of rpms) fs.rmSync(path.join(yum, rpm));
        sign(path.join(yum, 'repodata', 'repomd.xml'), ['--armor', '--detach-sign']);
        fs.writeFileSync(path.join(yum, RPM_KEY), gpg(['--armor', '--export', fingerprint]));
      }
    }
  });
}

/** The APT layout without its signatures; returns the path of its Release file. */
function aptRepo(out, apt, debs) {
  const pool = APT_POOL;
  const byArch = new Map();
  for (const deb of debs) {
    const control = execFileSync('dpkg-deb', ['-f', path.join(out, deb)], { encoding: 'utf8' }).trimEnd();
    const arch = control.match(/^Architecture: (\S+)$/m)[1];
    const bytes = fs.readFileSync(path.join(out, deb));
    const stanza = [
      control,
      `Filename: ${pool}/${deb}`,
      `Size: ${bytes.length}`,
      `MD5sum: ${hash('md5', bytes)}`,
      `SHA256: ${hash('sha256', bytes)}`,
    ].join('\n');
    byArch.set(arch, [...(byArch.get(arch) ?? []), stanza]);
  }
  const dist = path.join(apt, 'dists', SUITE);
  const indexes = [];
  for (const [arch, stanzas] of byArch) {
    const dir = `${COMPONENT}/binary-${arch}`;
    fs.mkdirSync(path.join(dist, dir), { recursive: true });
    const packages = Buffer.from(stanzas.join('\n\n') + '\n');
    for (const [name, bytes] of [
      ['Packages', packages],
      ['Packages.gz', zlib.gzipSync(packages, { level: 9 })],
    ]) {
      fs.writeFileSync(path.join(dist, dir, name), bytes);
      indexes.push({ name: `${dir}/${name}`, bytes });
    }
  }
  const list = (algorithm) =>
    indexes.map((i) => ` ${hash(algorithm, i.bytes)} ${String(i.bytes.length).padStart(8)} ${i.name}`);
  const release = path.join(dist, 'Release');
  fs.writeFileSync(
    release,
    [
      'Origin: Coffer',
      'Label: Coffer',
      `Suite: ${SUITE}`,
      `Codename: ${SUITE}`,
      `Date: ${new Date().toUTCString()}`,
      `Architectures: ${[...byArch.keys()].sort().join(' ')}`,
      `Components: ${COMPONENT}`,
      'Description: Coffer backup agent',
      'MD5Sum:',
      ...list('md5'),
      'SHA256:',
      ...list('sha256'),
      '',
    ].join('\n'),
  );
  return release;
}

const hash = (algorithm, bytes) => createHash(algorithm).update(bytes).digest('hex');

function linkInto(from, to) {
  fs.rmSync(to, { force: true });
  try {
    fs.linkSync(from, to);
  } catch {
    fs.copyFileSync(from, to);
  }
}

export function hasCommand(cmd) {
  try {
    execFileSync('sh', ['-c', `command -v "${cmd}"`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
