// The agent's RPM, installed, upgraded and removed with rpm (Debian's rpm package, run from the host
// with --root) in a Debian root of its own: rpm runs the package's scriptlets inside that root, so
// they meet a server without the agent's user, folders or configuration. The root's libraries are
// dpkg's, not in an RPM database, so the package's Requires (glibc >= 2.28, shadow-utils) cannot be
// resolved there: rpm runs with --nodeps. A RHEL or Fedora root (dnf) is not available here.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { baseUrl, newUser } from '../helpers';
import { DebianRoot, parseUnit } from './debian-root';

jest.setTimeout(300_000);

const REPO = path.resolve(__dirname, '../../..');
const served = (name: string) => path.join(process.env.COFFER_DOWNLOADS_DIR!, name);
const release = JSON.parse(fs.readFileSync(served('release.json'), 'utf8'));
const RPM = release.files['linux-x64'].rpm?.name as string;
const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

let root: DebianRoot;
/** rpm on the root; without the notice Debian's rpm prints on every install and erase. */
async function rpm(...args: string[]) {
  const r = await root.runFromHost(['rpm', '--root', root.dir, ...args]);
  const debianNotice =
    /^rpm: (RPM should not be used directly install RPM packages, use Alien instead!|However assuming you know what you are doing\.\.\.)\n/gm;
  return { ...r, stderr: r.stderr.replace(debianNotice, '') };
}

beforeAll(async () => {
  if (!RPM)
    throw new Error(`the downloads have no .rpm: build with rpmbuild installed (apt-get install rpm)`);
  root = await DebianRoot.create();
});

afterAll(async () => {
  await root?.remove();
});

describe('the .rpm package', () => {
  it('is signed with the key the YUM repository publishes', async () => {
    const key = await fetch(`${baseUrl()}/downloads/yum/RPM-GPG-KEY-coffer`);
    expect(key.status).toBe(200);
    fs.writeFileSync(root.path('tmp/RPM-GPG-KEY-coffer'), await key.text());
    expect((await rpm('--import', root.path('tmp/RPM-GPG-KEY-coffer'))).code).toBe(0);
    const check = await rpm('--checksig', served(RPM));
    expect(check.stdout.trim()).toBe(`${served(RPM)}: digests signatures OK`);
  });

  it('installs the agent, its Database Tools, the unit and the user, as the .deb does', async () => {
    const install = await rpm('-i', '--nodeps', served(RPM));
    expect({ code: install.code, stderr: install.stderr }).toEqual({ code: 0, stderr: '' });
    expect(install.stdout).toMatch(/coffer-agent is installed\. Connect it to your Coffer account/);
    expect(sha256(root.path('usr/bin/coffer-agent'))).toBe(sha256(served('coffer-agent-linux-x64')));
    for (const tool of ['mongodump', 'mongorestore'])
      expect(sha256(root.path(`usr/lib/coffer/tools/${tool}`))).toBe(sha256(served(`${tool}-linux-x64`)));
    expect(fs.readFileSync(root.path('etc/passwd'), 'utf8')).toMatch(/^coffer:/m);
    expect(fs.statSync(root.path('etc/coffer')).mode & 0o777).toBe(0o700);
    const unit = parseUnit(fs.readFileSync(root.path('usr/lib/systemd/system/coffer-agent.service'), 'utf8'));
    expect(unit.execStart).toEqual(['/usr/bin/coffer-agent', 'run', '--config', '/etc/coffer/agent.json']);
    expect(unit.user).toBe('coffer');

    const owner = await newUser('rpm');
    const init = await root.initPackagedAgent(baseUrl(), 'rpm-server', owner.apiKey);
    expect({ code: init.code, stderr: init.stderr }).toMatchObject({ code: 0 });
  });

  it('upgrades to a newer package: the new files stay, the configuration and key are kept', async () => {
    const before = await root.run(['coffer-agent', 'key', 'fingerprint']);
    expect(before.code).toBe(0);
    // The same files as version 99.0.0, built the way the release builds its RPM.
    const next = root.path('root');
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { buildRpm } = await import(${JSON.stringify(path.join(REPO, 'agent/scripts/packages.mjs'))});
         const fs = await import('node:fs');
         const dir = ${JSON.stringify(process.env.COFFER_DOWNLOADS_DIR)};
         buildRpm({ out: ${JSON.stringify(next)}, version: '99.0.0', target: 'linux-x64',
           agent: dir + '/coffer-agent-linux-x64',
           tools: { mongodump: dir + '/mongodump-linux-x64', mongorestore: dir + '/mongorestore-linux-x64' },
           unitTemplate: fs.readFileSync(${JSON.stringify(path.join(REPO, 'agent/install/coffer-agent.service'))}, 'utf8'),
           scriptsDir: ${JSON.stringify(path.join(REPO, 'agent/install/deb'))} });`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const upgrade = await rpm('-U', '--nodeps', path.join(next, 'coffer-agent-99.0.0-1.x86_64.rpm'));
    expect({ code: upgrade.code, stderr: upgrade.stderr }).toEqual({ code: 0, stderr: '' });
    expect(upgrade.stdout).not.toMatch(/Connect it to your Coffer account/);
    expect((await rpm('-q', 'coffer-agent')).stdout.trim()).toBe('coffer-agent-99.0.0-1.x86_64');
    // The old package's %preun/%postun ran after the new %post: they must have left its files.
    expect(fs.existsSync(root.path('usr/bin/coffer-agent'))).toBe(true);
    expect(fs.existsSync(root.path('usr/lib/systemd/system/coffer-agent.service'))).toBe(true);
    expect((await root.run(['coffer-agent', 'key', 'fingerprint'])).stdout).toBe(before.stdout);
  });

  it('rpm -e removes the program and keeps /etc/coffer and the user', async () => {
    const erased = await rpm('-e', 'coffer-agent');
    expect({ code: erased.code, stderr: erased.stderr }).toEqual({ code: 0, stderr: '' });
    for (const p of [
      'usr/bin/coffer-agent',
      'usr/lib/coffer/tools/mongodump',
      'usr/lib/systemd/system/coffer-agent.service',
    ])
      expect(fs.existsSync(root.path(p))).toBe(false);
    expect(fs.existsSync(root.path('etc/coffer/agent.json'))).toBe(true);
    expect(fs.readFileSync(root.path('etc/passwd'), 'utf8')).toMatch(/^coffer:/m);
  });
});
