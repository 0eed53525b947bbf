// The setup wizard's automated install, as a customer runs it: on a minimal Debian with neither
// Node.js nor the MongoDB Database Tools, `curl …/downloads/install.sh | bash -s -- --server …`
// checks the host first, asks for the API key in the terminal, and installs the agent binary with
// its bundled mongodump/mongorestore, its user, configuration, key and systemd unit; the unit
// (started the way systemd would, see debian-root.ts) connects, its database is listed, a backup
// completes and decrypts offline.
// Then the dashboard's Restart and Check for Updates (from an older build; with a corrupted
// download, a release signed by a key the agent does not trust, and updates turned off on the
// host), a re-run that upgrades in place, --uninstall and --purge.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, baseUrl, eventually, newUser, type TestUser } from '../helpers';
import { seedDatabase } from '../../../agent/src/testing/database-fixtures';
import { AGENT_EXEC_ARGV } from '../../../agent/src/runtime/exec-argv';
import { generateKeyPair, signMessage } from '../../../agent/src/update/minisign';
import { customerDbForFile, triggerBackup, uniqueName, waitBackup } from '../pipeline/harness';
import { DebianRoot, parseUnit, UnitRunner, type UnitFile } from './debian-root';

jest.setTimeout(300_000);

const REPO = path.resolve(__dirname, '../../..');
const DB = uniqueName('shop_');
const UNIT_PATH = 'etc/systemd/system/coffer-agent.service';
const served = (name: string) => path.join(process.env.COFFER_DOWNLOADS_DIR!, name);
const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

let root: DebianRoot;
const customer = customerDbForFile();
let owner: TestUser;
let unit: UnitFile;
let service: UnitRunner;
let agentId: string;

const installCommand = (args: string) => `curl -fsSL ${baseUrl()}/downloads/install.sh | bash -s -- ${args}`;
/** The command in a terminal of its own (`script`), `typed` on its keyboard: the installer's prompt. */
const inTerminal = (command: string, typed: string) =>
  root.run(['script', '-qec', command, '/dev/null'], { input: typed });

async function agentOnDashboard(): Promise<any> {
  const res = await api('GET', '/api/settings/system-status', { token: owner.token });
  return (res.body.agents ?? []).find((a: any) => a.name === 'db-server-1');
}

async function waitActive(version?: string, timeoutMs = 60_000): Promise<any> {
  return eventually(async () => {
    const a = await agentOnDashboard();
    if (a?.status !== 'active' || (version && a.version !== version))
      throw new Error(`agent is ${JSON.stringify(a)}\n${service?.output.slice(-3000)}`);
    return a;
  }, timeoutMs);
}

async function auditEntries(action: string): Promise<any[]> {
  const res = await api('GET', `/api/user/audit-logs?page=1&action=${action}`, { token: owner.token });
  return res.body.logs ?? [];
}

beforeAll(async () => {
  root = await DebianRoot.create();
  await seedDatabase(customer().client, DB, { events: 500 });
  owner = await newUser('installer');
});

afterAll(async () => {
  await service?.stop();
  await root?.remove();
});

describe('the Linux installer on a server without Node.js', () => {
  it('checks the host before it changes anything, and says what is missing in one line', async () => {
    const untouched = async () => {
      for (const p of ['usr/local/bin/coffer-agent', 'etc/coffer', 'usr/local/lib/coffer'])
        expect(fs.existsSync(root.path(p))).toBe(false);
      expect(fs.readFileSync(root.path('etc/passwd'), 'utf8')).not.toMatch(/^coffer:/m);
    };
    const args = `--server ${baseUrl()} --name db-server-1`;
    const env = { COFFER_API_KEY: owner.apiKey };
    // No systemd in this root: the installer says so and how to go on without a service.
    const noSystemd = await root.sh(installCommand(args), { env });
    expect(noSystemd.code).toBe(1);
    expect(noSystemd.stderr.trim()).toMatch(
      /^coffer: preflight: systemd is not running on this host; run again with --no-service .*; nothing was installed$/,
    );
    // A 32-bit personality: uname -m says i686.
    const arch = await root.sh(`setarch i686 bash -c '${installCommand(`${args} --no-service`)}'`, { env });
    expect(arch.code).toBe(1);
    expect(arch.stderr.trim()).toMatch(
      /^coffer: preflight: no Coffer agent for i686 .*; nothing was installed$/,
    );
    // /usr/local on a small file system of its own (in this command's mount namespace only).
    const full = await root.sh(
      `mount -t tmpfs -o size=64m tmpfs /usr/local && ${installCommand(`${args} --no-service`)}`,
      { env },
    );
    expect(full.code).toBe(1);
    expect(full.stderr.trim()).toMatch(
      /^coffer: preflight: the agent and its Database Tools needs 300 MB free on \/usr\/local\/bin, which has 6\d MB; nothing was installed$/,
    );
    await untouched();
  });

  it('installs a supervised agent that connects and backs up a database, with its bundled Database Tools', async () => {
    expect((await root.sh('command -v node || command -v nodejs')).code).not.toBe(0);
    expect((await root.sh('command -v mongodump || command -v mongorestore')).code).not.toBe(0);
    const started = Date.now();
    // As the wizard shows it: no key on the command line; the installer asks for it in the terminal.
    const install = await inTerminal(
      installCommand(`--server ${baseUrl()} --name db-server-1 --no-service`),
      `${owner.apiKey}\n`,
    );
    expect(install.stdout).not.toMatch(/error|warning/i);
    expect(install.code).toBe(0);
    expect(install.stdout).toMatch(/Coffer API key \(Settings → Security on the dashboard\): /);
    expect(install.stdout).toMatch(
      /installed \/usr\/local\/bin\/coffer-agent: coffer-agent \d+\.\d+\.\d+ \(linux-x64, Node\.js v24/,
    );
    expect(install.stdout).toMatch(
      /installed the MongoDB Database Tools in \/usr\/local\/lib\/coffer\/tools: mongodump version: v0\.0\.0-/,
    );
    expect(install.stdout).toMatch(/coffer-agent key export --out coffer-master\.key/);
    expect(install.stdout).toMatch(/no service was set up \(--no-service\)/);

    // What the installer left: the binary and the tools as served, a private config owned by the service user.
    expect(sha256(root.path('usr/local/bin/coffer-agent'))).toBe(sha256(served('coffer-agent-linux-x64')));
    for (const tool of ['mongodump', 'mongorestore'])
      expect(sha256(root.path(`usr/local/lib/coffer/tools/${tool}`))).toBe(
        sha256(served(`${tool}-linux-x64`)),
      );
    const passwd = fs.readFileSync(root.path('etc/passwd'), 'utf8');
    const uid = passwd
      .split('\n')
      .find((l) => l.startsWith('coffer:'))!
      .split(':')[2]!;
    for (const [p, mode] of [
      ['etc/coffer', 0o700],
      ['etc/coffer/agent.json', 0o600],
      ['var/lib/coffer', 0o700],
    ] as const) {
      const st = fs.statSync(root.path(p));
      expect({ p, uid: st.uid, mode: st.mode & 0o777 }).toEqual({ p, uid: Number(uid), mode });
    }
    unit = parseUnit(fs.readFileSync(root.path(UNIT_PATH), 'utf8'));
    expect(unit.user).toBe('coffer');
    expect(unit.restart).toBe('always');
    const hardening = {
      NoNewPrivileges: 'true',
      ProtectSystem: 'strict',
      PrivateTmp: 'true',
      ReadWritePaths: '/var/lib/coffer',
    };
    for (const [k, v] of Object.entries(hardening)) expect(unit.directives.get(k)).toEqual([v]);

    service = new UnitRunner(root, unit);
    await service.start();
    const active = await waitActive();
    agentId = active.id;
    console.log(`installer start to agent active: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // The binary starts Node with the agent's V8 options (its SEA configuration), no flags needed.
    const starting = service.output.split('\n').find((l) => l.includes('"msg":"starting"'));
    expect(JSON.parse(starting!).nodeOptions).toEqual(AGENT_EXEC_ARGV);

    // The connection string goes in on stdin; the running service picks the database up.
    const add = await root.run(['coffer-agent', 'db', 'add', 'production-db', '--uri', '-'], {
      input: customer().uri(DB),
    });
    expect(add.code).toBe(0);
    expect(fs.statSync(root.path('etc/coffer/agent.json')).uid).toBe(Number(uid));
    await eventually(async () => {
      const dbs = await api('GET', '/api/settings/databases', { token: owner.token });
      expect(dbs.body.map((d: any) => d.name)).toContain('production-db');
    }, 30_000);

    const backup = await triggerBackup(owner.token, 'production-db');
    const done = await waitBackup(owner.token, backup._id, 120_000);
    expect({ status: done.status, error: done.error }).toEqual({ status: 'completed', error: undefined });

    // Downloaded like the dashboard does, decrypted offline by the installed agent with its key.
    const res = await fetch(`${baseUrl()}/api/backups/${backup._id}/download`, {
      headers: { Authorization: `Bearer ${owner.token}` },
    });
    expect(res.status).toBe(200);
    fs.writeFileSync(root.path('root/backup.enc.coffer'), Buffer.from(await res.arrayBuffer()));
    const dec = await root.run([
      'coffer-agent',
      'decrypt',
      '/root/backup.enc.coffer',
      '-o',
      '/root/dump.archive',
    ]);
    expect(dec.code).toBe(0);
    expect(dec.stderr).toMatch(/^Verified \/root\/backup\.enc\.coffer: .*\nWrote \/root\/dump\.archive/);
    // A mongodump archive starts with its magic number 0x8199e26d (little-endian).
    expect(fs.readFileSync(root.path('root/dump.archive')).readUInt32LE(0)).toBe(0x8199e26d);

    const status = await root.run(['coffer-agent', 'status']);
    expect(status.stdout).toMatch(/^running \(pid \d+, version \d+\.\d+\.\d+/);
    expect(status.stdout).toMatch(/server: connected/);
    // The agent found and reports the tools it brought (no COFFER_TOOLS_DIR, nothing on PATH).
    expect(status.stdout).toMatch(
      /tool: \/usr\/local\/lib\/coffer\/tools\/mongodump \(mongodump version: v0\.0\.0-/,
    );
    expect(status.stdout).toMatch(
      /tool: \/usr\/local\/lib\/coffer\/tools\/mongorestore \(mongorestore version:/,
    );
  });

  it('Restart Agent: the service manager starts it again and the dashboard sees it come back', async () => {
    const startsBefore = service.starts;
    const res = await api('POST', `/api/agents/manage/${agentId}`, {
      token: owner.token,
      body: { action: 'restart' },
    });
    expect(res.status).toBe(200);
    await eventually(async () => expect(service.starts).toBe(startsBefore + 1), 30_000);
    expect(service.output).toMatch(/\[exited 75\]/);
    expect((await waitActive()).id).toBe(agentId);
  });

  describe('Check for Updates', () => {
    const current = JSON.parse(fs.readFileSync(path.join(REPO, 'agent/package.json'), 'utf8')).version;
    let oldBinary: string;

    beforeAll(() => {
      const out = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-old-agent-'));
      execFileSync(
        process.execPath,
        [
          path.join(REPO, 'agent/scripts/build-binaries.mjs'),
          '--version',
          '0.1.0',
          '--targets',
          'linux-x64',
          '--no-compress',
          '--out',
          out,
        ],
        { stdio: 'inherit' },
      );
      oldBinary = path.join(out, 'coffer-agent-linux-x64');
    });

    /** Stops the service, puts the 0.1.0 build in place, starts it again. */
    async function runOldVersion(): Promise<void> {
      await service.stop();
      fs.copyFileSync(oldBinary, root.path('usr/local/bin/coffer-agent'));
      await service.start();
      await waitActive('0.1.0');
    }

    const requestUpdate = async () => {
      const res = await api('POST', `/api/agents/manage/${agentId}`, {
        token: owner.token,
        body: { action: 'update' },
      });
      expect(res.status).toBe(200);
    };

    it('an older agent installs the current release, restarts into it and the audit log says so', async () => {
      await runOldVersion();
      await requestUpdate();
      const back = await waitActive(current, 120_000);
      expect(back.id).toBe(agentId);
      expect(sha256(root.path('usr/local/bin/coffer-agent'))).toBe(sha256(served('coffer-agent-linux-x64')));
      expect(service.output).toMatch(/\[ExecStartPre exit 0\] update: updated/);
      const entries = await eventually(async () => {
        const e = await auditEntries('AGENT_UPDATED');
        expect(e.length).toBe(1);
        return e;
      }, 20_000);
      expect(entries[0].details).toMatchObject({ name: 'db-server-1', value: `0.1.0 → ${current}` });
    });

    it('the newest release answers up to date, and the audit log says so (issue 21, walk 10)', async () => {
      await waitActive(current);
      await requestUpdate();
      const entries = await eventually(async () => {
        const e = await auditEntries('AGENT_UP_TO_DATE');
        expect(e.length).toBe(1);
        return e;
      }, 120_000);
      expect(entries[0].details).toMatchObject({ name: 'db-server-1', value: current });
      expect(sha256(root.path('usr/local/bin/coffer-agent'))).toBe(sha256(served('coffer-agent-linux-x64')));
    });

    it('a corrupted download is refused: the old version keeps running and the audit log says why', async () => {
      const zst = served('coffer-agent-linux-x64.zst');
      const good = fs.readFileSync(zst);
      const bad = Buffer.from(good);
      const middle = bad.length >> 1;
      bad.writeUInt8(bad.readUInt8(middle) ^ 0xff, middle);
      fs.writeFileSync(`${zst}.tmp`, bad);
      fs.renameSync(`${zst}.tmp`, zst);
      try {
        await runOldVersion();
        await requestUpdate();
        const entries = await eventually(async () => {
          const e = await auditEntries('AGENT_UPDATE_FAILED');
          expect(e.length).toBe(1);
          return e;
        }, 120_000);
        expect(entries[0].details.error).toMatch(/coffer-agent-linux-x64\.zst does not match its SHA-256/);
        expect((await waitActive('0.1.0')).id).toBe(agentId);
        expect(sha256(root.path('usr/local/bin/coffer-agent'))).toBe(sha256(oldBinary));
      } finally {
        fs.writeFileSync(`${zst}.tmp`, good);
        fs.renameSync(`${zst}.tmp`, zst);
      }
    });

    /** Waits for the audit log's AGENT_UPDATE_FAILED entry whose reason matches `reason`. */
    const failureReported = (reason: RegExp) =>
      eventually(async () => {
        const errors: string[] = (await auditEntries('AGENT_UPDATE_FAILED')).map((x) => x.details.error);
        expect(errors).toContainEqual(expect.stringMatching(reason));
        return errors.find((e) => reason.test(e))!;
      }, 120_000);

    it('a release signed by a key the agent does not trust is refused: the old version keeps running and the audit log says why', async () => {
      const sig = served('SHA256SUMS.minisig');
      const genuine = fs.readFileSync(sig);
      const forged = signMessage(
        fs.readFileSync(served('SHA256SUMS')),
        generateKeyPair().key,
        'file:SHA256SUMS',
      );
      fs.writeFileSync(`${sig}.tmp`, forged);
      fs.renameSync(`${sig}.tmp`, sig);
      try {
        await runOldVersion();
        await requestUpdate();
        const error = await failureReported(
          /SHA256SUMS is signed by the key [0-9A-F]{16}, which this agent does not trust/,
        );
        expect(error).toMatch(/^the release \d+\.\d+\.\d+ is refused: .*this version keeps running$/);
        expect((await waitActive('0.1.0')).id).toBe(agentId);
        expect(sha256(root.path('usr/local/bin/coffer-agent'))).toBe(sha256(oldBinary));
      } finally {
        fs.writeFileSync(`${sig}.tmp`, genuine);
        fs.renameSync(`${sig}.tmp`, sig);
      }
    });

    it('with updates turned off on the host, the agent refuses the update and the audit log says why', async () => {
      const off = await root.run(['coffer-agent', 'config', 'updates', 'off']);
      expect(off.code).toBe(0);
      try {
        await runOldVersion();
        await requestUpdate();
        await failureReported(/^updates are turned off on this host/);
        expect((await waitActive('0.1.0')).id).toBe(agentId);
        expect(sha256(root.path('usr/local/bin/coffer-agent'))).toBe(sha256(oldBinary));
      } finally {
        expect((await root.run(['coffer-agent', 'config', 'updates', 'on'])).code).toBe(0);
      }
    });
  });

  it('re-running the installer upgrades in place and keeps the key and the databases', async () => {
    await service.stop();
    const before = await root.run(['coffer-agent', 'key', 'fingerprint']);
    const again = await root.sh(installCommand('--no-service'));
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/kept \/etc\/coffer\/agent\.json/);
    expect(sha256(root.path('usr/local/bin/coffer-agent'))).toBe(sha256(served('coffer-agent-linux-x64')));
    expect((await root.run(['coffer-agent', 'key', 'fingerprint'])).stdout).toBe(before.stdout);
    expect((await root.run(['coffer-agent', 'db', 'list'])).stdout).toMatch(/production-db/);
    await service.start();
    await waitActive();
  });

  it('--uninstall removes the service and the binary and keeps the key; --purge removes the rest', async () => {
    await service.stop();
    const removed = await root.sh(installCommand('--uninstall'));
    expect(removed.code).toBe(0);
    expect(fs.existsSync(root.path('usr/local/bin/coffer-agent'))).toBe(false);
    expect(fs.existsSync(root.path(UNIT_PATH))).toBe(false);
    expect(fs.existsSync(root.path('usr/local/lib/coffer'))).toBe(false);
    expect(fs.existsSync(root.path('etc/coffer/agent.json'))).toBe(true);

    const purged = await root.sh(installCommand('--uninstall --purge'));
    expect(purged.code).toBe(0);
    for (const p of ['etc/coffer', 'var/lib/coffer']) expect(fs.existsSync(root.path(p))).toBe(false);
    expect(fs.readFileSync(root.path('etc/passwd'), 'utf8')).not.toMatch(/^coffer:/m);
  });
});
