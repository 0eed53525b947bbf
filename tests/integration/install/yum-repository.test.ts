// The gateway's YUM repository (/downloads/yum, agent/scripts/package-repos.mjs) read by a real dnf
// (Debian's dnf 4, on the host, into an install root of the test's): the repository file is the
// one the setup wizard's dnf line writes; dnf fetches the key it names, checks repomd.xml's
// signature (repo_gpgcheck) and finds the release's package. With another key it refuses the
// metadata. Installing with dnf needs a RHEL or Fedora root (glibc, shadow-utils) that is not
// available here: rpm-package.test.ts installs the same package with rpm.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { baseUrl } from '../helpers';
import { packageCommand } from '../../../web/src/features/agents/wizardCommands';

jest.setTimeout(300_000);

const served = (name: string) => path.join(process.env.COFFER_DOWNLOADS_DIR!, name);
let dir: string;

/** The wizard's repository file, written into `reposdir` instead of /etc/yum.repos.d. */
function writeRepoFile(reposdir: string) {
  const line = packageCommand('dnf', baseUrl(), { root: true }).split('\n')[0]!;
  execFileSync('bash', ['-ec', line.replace('/etc/yum.repos.d/', `${reposdir}/`)]);
}

/** `dnf repoquery --info coffer-agent` with only the files of `reposdir`, into a fresh root. */
function repoquery(reposdir: string) {
  const root = fs.mkdtempSync(path.join(dir, 'root-'));
  const r = spawnSync(
    'dnf',
    [
      '-y',
      `--installroot=${root}`,
      `--setopt=reposdir=${reposdir}`,
      '--releasever=9',
      'repoquery',
      '--info',
      'coffer-agent',
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  return `${r.stdout}${r.stderr}`;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-dnf-'));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the YUM repository under /downloads/yum', () => {
  it("dnf checks its signature with the wizard's repository file and finds the release's package", () => {
    const repos = path.join(dir, 'repos');
    fs.mkdirSync(repos);
    writeRepoFile(repos);
    expect(fs.readFileSync(path.join(repos, 'coffer.repo'), 'utf8')).toContain('repo_gpgcheck=1\n');
    const out = repoquery(repos);
    const { version } = JSON.parse(fs.readFileSync(served('release.json'), 'utf8'));
    expect(out).toMatch(/Importing GPG key 0x[0-9A-F]{8}:\n Userid +: "Coffer development packages/);
    expect(out).toMatch(new RegExp(`^Version +: ${version.replace(/\./g, '\\.')}$`, 'm'));
    expect(out).toMatch(/^Architecture : aarch64$/m);
    expect(out).toMatch(/^Architecture : x86_64$/m);
    expect(out).not.toMatch(/Error/);
  });

  it('dnf refuses the metadata when the repository file names another key', () => {
    const repos = path.join(dir, 'other-repos');
    fs.mkdirSync(repos);
    writeRepoFile(repos);
    const home = fs.mkdtempSync(path.join(dir, 'gpg-'));
    const gpg = (args: string[]) =>
      execFileSync('gpg', [
        '--homedir',
        home,
        '--batch',
        '--quiet',
        '--passphrase',
        '',
        '--pinentry-mode',
        'loopback',
        ...args,
      ]);
    try {
      gpg(['--quick-generate-key', 'Someone else <x@example.invalid>', 'ed25519', 'sign', 'never']);
      fs.writeFileSync(path.join(dir, 'other.asc'), gpg(['--armor', '--export']));
    } finally {
      execFileSync('gpgconf', ['--homedir', home, '--kill', 'all']);
    }
    const file = path.join(repos, 'coffer.repo');
    fs.writeFileSync(
      file,
      fs.readFileSync(file, 'utf8').replace(/^gpgkey=.*$/m, `gpgkey=file://${dir}/other.asc`),
    );
    const out = repoquery(repos);
    expect(out).toContain('repomd.xml GPG signature verification error: Bad GPG signature');
    expect(out).not.toMatch(/^Name +: coffer-agent$/m);
  });
});
