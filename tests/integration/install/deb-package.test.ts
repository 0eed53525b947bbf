// The agent's Debian package on a minimal Debian without Node.js or the Database Tools (the
// debootstrap root of the installer tests): `dpkg -i` installs the agent, its bundled tools, the
// systemd unit and the `coffer` user; once `init` has configured it, the unit (started the way
// systemd would: debian-root.ts) connects and a backup completes. A newer package upgrades it and
// keeps /etc/coffer (the key, the databases); `dpkg -r` removes the program and keeps them;
// `dpkg -P` deletes them and the user.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { api, baseUrl, eventually, newUser, type TestUser } from '../helpers';
import { seedDatabase } from '../../../agent/src/testing/database-fixtures';
import { customerDbForFile, triggerBackup, uniqueName, waitBackup } from '../pipeline/harness';
import { DebianRoot, parseUnit, UnitRunner } from './debian-root';

jest.setTimeout(300_000);

const DIR = path.resolve(__dirname, '../../../agent/dist/downloads');
const release = JSON.parse(fs.readFileSync(path.join(DIR, 'release.json'), 'utf8'));
const DEB = release.files['linux-x64'].deb?.name as string;
const DB = uniqueName('debshop_');
const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

let root: DebianRoot;
const customer = customerDbForFile();
let owner: TestUser;
let service: UnitRunner | undefined;

const agentOnDashboard = async () =>
  ((await api('GET', '/api/settings/system-status', { token: owner.token })).body.agents ?? []).find(
    (a: any) => a.name === 'deb-server',
  );
const waitActive = () =>
  eventually(async () => {
    const a = await agentOnDashboard();
    if (a?.status !== 'active')
      throw new Error(`agent is ${JSON.stringify(a)}\n${service?.output.slice(-2000)}`);
    return a;
  }, 60_000);

beforeAll(async () => {
  if (!DEB) throw new Error(`${DIR} has no .deb: build with dpkg-deb installed (npm run build)`);
  root = await DebianRoot.create();
  fs.copyFileSync(path.join(DIR, DEB), root.path('root/coffer-agent.deb'));
  await seedDatabase(customer().client, DB, { events: 300 });
  owner = await newUser('debian');
});

afterAll(async () => {
  await service?.stop();
  await root?.remove();
});

describe('the .deb package', () => {
  it('installs the agent, its Database Tools, the unit and the user; configured, it backs up', async () => {
    expect((await root.sh('command -v node || command -v mongodump')).code).not.toBe(0);
    const install = await root.run(['dpkg', '-i', '/root/coffer-agent.deb']);
    expect({ code: install.code, stderr: install.stderr }).toEqual({ code: 0, stderr: '' });
    expect(install.stdout).toMatch(/coffer-agent is installed\. Connect it to your Coffer account/);
    expect(sha256(root.path('usr/bin/coffer-agent'))).toBe(sha256(path.join(DIR, 'coffer-agent-linux-x64')));
    for (const tool of ['mongodump', 'mongorestore'])
      expect(sha256(root.path(`usr/lib/coffer/tools/${tool}`))).toBe(
        sha256(path.join(DIR, `${tool}-linux-x64`)),
      );
    expect(fs.readFileSync(root.path('etc/passwd'), 'utf8')).toMatch(/^coffer:/m);
    expect(fs.statSync(root.path('etc/coffer')).mode & 0o777).toBe(0o700);
    // The same hardened unit install.sh writes, for /usr/bin/coffer-agent.
    const unit = parseUnit(fs.readFileSync(root.path('lib/systemd/system/coffer-agent.service'), 'utf8'));
    expect(unit.execStart).toEqual(['/usr/bin/coffer-agent', 'run', '--config', '/etc/coffer/agent.json']);
    expect(unit.directives.get('ProtectSystem')).toEqual(['strict']);

    // As the package's message says (the key from the environment instead of the prompt).
    const init = await root.initPackagedAgent(baseUrl(), 'deb-server', owner.apiKey);
    expect(init.code).toBe(0);
    service = new UnitRunner(root, unit);
    await service.start();
    await waitActive();
    // The agent runs the tools that came in the package.
    expect(service.output).toMatch(
      /"tools":\["\/usr\/lib\/coffer\/tools\/mongodump \(mongodump version: v0\.0\.0-/,
    );
    const add = await root.run(['coffer-agent', 'db', 'add', 'production-db', '--uri', '-'], {
      input: customer().uri(DB),
    });
    expect(add.code).toBe(0);
    await eventually(async () => {
      const dbs = await api('GET', '/api/settings/databases', { token: owner.token });
      expect(dbs.body.map((d: any) => d.name)).toContain('production-db');
    }, 30_000);
    const backup = await triggerBackup(owner.token, 'production-db');
    const done = await waitBackup(owner.token, backup._id, 120_000);
    expect({ status: done.status, error: done.error }).toEqual({ status: 'completed', error: undefined });
  });

  it('upgrades to a newer package and keeps the configuration, the key and the databases', async () => {
    await service!.stop();
    const before = await root.run(['coffer-agent', 'key', 'fingerprint']);
    // The same files as a newer version: the upgrade path of dpkg and the maintainer scripts.
    const bumped = await root.sh(
      'dpkg-deb -R /root/coffer-agent.deb /root/next && ' +
        "sed -i 's/^Version: .*/Version: 99.0.0/' /root/next/DEBIAN/control && " +
        'dpkg-deb --root-owner-group -Zgzip -b /root/next /root/coffer-agent-next.deb >/dev/null',
    );
    expect(bumped.code).toBe(0);
    const upgrade = await root.run(['dpkg', '-i', '/root/coffer-agent-next.deb']);
    expect(upgrade.code).toBe(0);
    expect(upgrade.stdout).not.toMatch(/Connect it to your Coffer account/);
    expect((await root.run(['dpkg-query', '-W', '-f', '${Version}', 'coffer-agent'])).stdout).toBe('99.0.0');
    expect((await root.run(['coffer-agent', 'key', 'fingerprint'])).stdout).toBe(before.stdout);
    expect((await root.run(['coffer-agent', 'db', 'list'])).stdout).toMatch(/production-db/);
    await service!.start();
    await waitActive();
    await service!.stop();
  });

  it('dpkg -r removes the program and keeps /etc/coffer; dpkg -P deletes it and the user', async () => {
    const removed = await root.run(['dpkg', '-r', 'coffer-agent']);
    expect(removed.code).toBe(0);
    for (const p of [
      'usr/bin/coffer-agent',
      'usr/lib/coffer/tools/mongodump',
      'lib/systemd/system/coffer-agent.service',
    ])
      expect(fs.existsSync(root.path(p))).toBe(false);
    expect(fs.existsSync(root.path('etc/coffer/agent.json'))).toBe(true);
    const purged = await root.run(['dpkg', '-P', 'coffer-agent']);
    expect(purged.code).toBe(0);
    for (const p of ['etc/coffer', 'var/lib/coffer']) expect(fs.existsSync(root.path(p))).toBe(false);
    expect(fs.readFileSync(root.path('etc/passwd'), 'utf8')).not.toMatch(/^coffer:/m);
  });
});
