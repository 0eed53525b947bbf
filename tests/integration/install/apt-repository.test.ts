// The gateway's APT repository (/downloads/apt, agent/scripts/package-repos.mjs) as a customer
// uses it, in the debootstrap root (Debian with apt and curl, no Node.js, no Database Tools): the
// setup wizard's apt lines, as a root shell runs them, put the server's key into /etc/apt/keyrings
// and one sources line; `apt-get update` checks the signed InRelease and `apt-get install
// coffer-agent` installs the release's package. With another key in the keyring apt refuses the
// repository.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { baseUrl } from '../helpers';
import { aptLines, withoutSudo } from '../../../web/src/features/agents/wizardCommands';
import { DebianRoot } from './debian-root';

jest.setTimeout(300_000);

const served = (name: string) => path.join(process.env.COFFER_DOWNLOADS_DIR!, name);
const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const KEYRING = '/etc/apt/keyrings/coffer.gpg';

let root: DebianRoot;

/** No APT sources but the ones a test adds (Debian's own would need the internet). */
function onlyOwnSources() {
  fs.rmSync(root.path('etc/apt/sources.list'), { force: true });
  fs.rmSync(root.path('etc/apt/sources.list.d'), { recursive: true, force: true });
  fs.mkdirSync(root.path('etc/apt/sources.list.d'));
  fs.rmSync(root.path('var/lib/apt/lists'), { recursive: true, force: true });
  fs.mkdirSync(root.path('var/lib/apt/lists/partial'), { recursive: true });
}

/** The Coffer repository, trusted with the key in `keyring` (bytes). */
function useRepository(keyring: Buffer) {
  onlyOwnSources();
  fs.mkdirSync(root.path('etc/apt/keyrings'), { recursive: true });
  fs.writeFileSync(root.path(KEYRING.slice(1)), keyring, { mode: 0o644 });
  fs.writeFileSync(
    root.path('etc/apt/sources.list.d/coffer.list'),
    `deb [signed-by=${KEYRING}] ${baseUrl()}/downloads/apt stable main\n`,
  );
}

beforeAll(async () => {
  root = await DebianRoot.create();
});

afterAll(async () => {
  await root?.remove();
});

describe('the APT repository under /downloads/apt', () => {
  it('refuses the repository when the keyring holds another key', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-other-key-'));
    try {
      const gpg = (args: string[]) =>
        execFileSync('gpg', ['--homedir', home, '--batch', '--quiet', '--passphrase', '', ...args]);
      gpg([
        '--pinentry-mode',
        'loopback',
        '--quick-generate-key',
        'Someone else <x@example.invalid>',
        'ed25519',
        'sign',
        'never',
      ]);
      useRepository(gpg(['--export']));
    } finally {
      execFileSync('gpgconf', ['--homedir', home, '--kill', 'all']);
      fs.rmSync(home, { recursive: true, force: true });
    }
    const update = await root.run(['apt-get', 'update']);
    expect(`${update.stdout}${update.stderr}`).toMatch(/NO_PUBKEY|is not signed/);
    const install = await root.run(['apt-get', 'install', '-y', 'coffer-agent']);
    expect(install.code).not.toBe(0);
    expect(fs.existsSync(root.path('usr/bin/coffer-agent'))).toBe(false);
  });

  it("the wizard's apt lines verify the repository with the server's key and install the package", async () => {
    onlyOwnSources();
    fs.rmSync(root.path(KEYRING.slice(1)), { force: true });
    const lines = withoutSudo(aptLines(baseUrl()).join('\n'));
    const install = await root.run(['bash', '-ec', lines], { env: { DEBIAN_FRONTEND: 'noninteractive' } });
    expect({ code: install.code, warnings: install.stderr.match(/^[WE]:.*$/gm) ?? [] }).toEqual({
      code: 0,
      warnings: [],
    });
    expect(install.stdout).toMatch(/Get:\d+ \S+\/downloads\/apt stable InRelease/);
    const release = JSON.parse(fs.readFileSync(served('release.json'), 'utf8'));
    const policy = await root.run(['apt-cache', 'policy', 'coffer-agent']);
    expect(policy.stdout).toContain(`Installed: ${release.version}`);
    expect(install.stdout).toMatch(/coffer-agent is installed\. Connect it to your Coffer account/);
    expect(sha256(root.path('usr/bin/coffer-agent'))).toBe(sha256(served('coffer-agent-linux-x64')));
    for (const tool of ['mongodump', 'mongorestore'])
      expect(sha256(root.path(`usr/lib/coffer/tools/${tool}`))).toBe(sha256(served(`${tool}-linux-x64`)));
    const version = await root.run(['coffer-agent', '--version']);
    expect(version.stdout).toContain(release.version);
    expect((await root.run(['dpkg-query', '-W', '-f', '${Status}', 'coffer-agent'])).stdout).toBe(
      'install ok installed',
    );
  });
});
