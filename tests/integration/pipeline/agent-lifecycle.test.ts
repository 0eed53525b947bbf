// The agent process through its life: killed mid-backup or mid-restore, stopped (idle or
// mid-backup), two agents whose configs share a folder, and the dashboard's agent commands (check
// for updates, reset the connection, restart).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { adminToken, api, baseUrl, eventually, mailsTo, newUser, type TestUser } from '../helpers';
import { seedDatabase } from '../../../agent/src/testing/database-fixtures';
import {
  AGENT_BIN,
  agentCli,
  backupCompleted,
  blobFiles,
  customerDbForFile,
  profile,
  requestRestore,
  setupAgent,
  triggerBackup,
  uniqueName,
  waitAgentActive,
  waitBackup,
  waitRestore,
  type Agent,
} from './harness';

jest.setTimeout(120_000);

const LABEL = 'big-db';
const DB = uniqueName('big_');
/** A database of its own for the restore that is cut short (it is left incomplete). */
const RESTORE_LABEL = 'restore-db';
const RESTORE_DB = uniqueName('restore_');
const customer = customerDbForFile();

beforeAll(async () => {
  // Enough data that mongodump runs for a few seconds (about 4 MB of incompressible payload).
  await seedDatabase(customer().client, DB, { events: 16_000 });
  await seedDatabase(customer().client, RESTORE_DB, { events: 16_000 });
});

/** The agent as the dashboard lists it (GET /api/settings/system-status). */
async function listed(token: string, name: string): Promise<any> {
  const res = await api('GET', '/api/settings/system-status', { token });
  expect(res.status).toBe(200);
  return (res.body.agents ?? []).find((a: any) => a.name === name);
}

const noAgentFor = (label: string) =>
  `No connected agent reports database '${label}'. Check that the agent is running and configured for this database.`;

/**
 * Starts a backup and resolves while the agent is dumping it: a second into the dump (which takes
 * several seconds), when the upload is open but far from complete.
 */
async function backupUnderWay(user: TestUser, agent: Agent): Promise<string> {
  const created = await triggerBackup(user.token, LABEL);
  const job = await eventually(async () => {
    const found = (agent.status()?.jobs ?? []).find((j: any) => j.id === created._id);
    if (found?.phase !== 'dumping') throw new Error(`not dumping yet:\n${agent.output.slice(-2000)}`);
    return found;
  }, 30_000);
  await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(job.startedAt) + 1000 - Date.now())));
  const still = (agent.status()?.jobs ?? []).find((j: any) => j.id === created._id);
  expect(still?.phase).toBe('dumping');
  return created._id;
}

describe('an agent that goes away during a backup', () => {
  it('killed (SIGKILL): the backup fails with a reason, storage keeps nothing, usage unchanged', async () => {
    const owner = await newUser('killed');
    const agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }]);
    const usedBefore = (await profile(owner.token)).storageUsed;
    const id = await backupUnderWay(owner, agent);
    expect(await agent.stop('SIGKILL')).toBeNull();

    // Well within the orchestrator's heartbeat timeout: the open upload breaks with the process.
    const done = await waitBackup(owner.token, id, 20_000);
    expect(done.status).toBe('failed');
    expect(done.error).toBe('Upload interrupted: the agent stopped sending before the backup was complete');
    expect(done.size).toBe(0);
    await eventually(async () => expect(blobFiles(owner.id, id)).toEqual([]), 10_000);
    expect((await profile(owner.token)).storageUsed).toBe(usedBefore);
  });

  it("stopped (SIGTERM): the agent reports 'Agent stopped' before it exits cleanly", async () => {
    const owner = await newUser('stopped');
    const agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }]);
    const id = await backupUnderWay(owner, agent);
    expect(await agent.stop('SIGTERM')).toBe(0);

    const done = await waitBackup(owner.token, id, 20_000);
    expect(done).toMatchObject({ status: 'failed', error: 'Agent stopped', size: 0 });
    expect(blobFiles(owner.id, id)).toEqual([]);
    const failed = agent.logs().find((l) => l.msg === 'backup failed');
    expect(failed).toMatchObject({ level: 'error', jobId: id, error: 'Agent stopped' });
    expect(agent.status()).toMatchObject({ connected: false, jobs: [] });
    // It said it was leaving before it stopped the backup.
    const msgs = agent.logs().map((l) => l.msg);
    expect(msgs.indexOf('the server knows this agent is leaving')).toBeGreaterThan(-1);
    expect(msgs.indexOf('the server knows this agent is leaving')).toBeLessThan(
      msgs.indexOf('backup failed'),
    );
  });

  it('killed (SIGKILL) during a restore: the restore fails with the reason once the agent does not come back', async () => {
    const owner = await newUser('killed-restore');
    const agent = await setupAgent(owner, [{ label: RESTORE_LABEL, uri: customer().uri(RESTORE_DB) }]);
    const backup = await backupCompleted(owner.token, RESTORE_LABEL, agent);
    const restore = await requestRestore(owner.token, backup._id, RESTORE_LABEL);
    // Under way on both sides: the server has it in progress and the agent lists it.
    await eventually(async () => {
      const res = await api('GET', '/api/backups/restores/all', { token: owner.token });
      const r = (res.body as any[]).find((x) => x._id === restore._id);
      if (r?.status !== 'in-progress') throw new Error(`restore is ${JSON.stringify(r)}`);
      const job = (agent.status()?.jobs ?? []).find((j: any) => j.id === restore._id);
      if (!job) throw new Error(`the agent does not run it:\n${agent.output.slice(-2000)}`);
    }, 30_000);
    expect(await agent.stop('SIGKILL')).toBeNull();

    // Nothing reports for a killed agent: the reason says what happened, not 'stopped responding'.
    const done = await waitRestore(owner.token, restore._id, 90_000);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(
      /^The agent disconnected during the restore and did not reconnect within 15 s\. The database 'restore-db' may be partly restored: restore the backup of .+ again$/,
    );
    expect((await listed(owner.token, agent.name)).status).toBe('offline');
  });
});

describe('an agent that stops', () => {
  it('SIGTERM: the server shows it offline at once and refuses Trigger Backup with the reason', async () => {
    const owner = await newUser('leaving');
    const agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }]);
    expect((await listed(owner.token, agent.name)).status).toBe('active');
    expect(await agent.stop('SIGTERM')).toBe(0);

    // The agent waited for the server to record its leaving before it exited.
    expect(agent.logs().find((l) => l.msg === 'the server knows this agent is leaving')).toBeDefined();
    expect((await listed(owner.token, agent.name)).status).toBe('offline');
    const res = await api('POST', '/api/backups', { token: owner.token, body: { databaseName: LABEL } });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'AGENT_UNAVAILABLE', message: noAgentFor(LABEL) });

    // Started again, it is active again under the same id, and takes backups.
    const before = await listed(owner.token, agent.name);
    await agent.start();
    expect((await waitAgentActive(owner.token, agent.name)).id).toBe(before.id);
    await backupCompleted(owner.token, LABEL, agent);
  });
});

describe('two agents whose configs share a folder', () => {
  const cli = async (args: string[], config: string, stdin = '') => {
    const r = await agentCli(args, config, stdin);
    if (r.code !== 0) throw new Error(`coffer-agent ${args.join(' ')}: ${r.code} ${r.stderr}${r.stdout}`);
    return r.stdout;
  };

  /** `coffer-agent run` of another config, with its output kept; `stop` ends it (SIGTERM unless said). */
  function runConfig(config: string) {
    let output = '';
    const child = spawn(process.execPath, [AGENT_BIN, 'run', '--config', config], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HEARTBEAT_INTERVAL_MS: '1000' },
    });
    child.stdout.setEncoding('utf8').on('data', (t: string) => (output += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (output += t));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    return {
      pid: child.pid,
      output: () => output,
      async stop(signal: NodeJS.Signals = 'SIGTERM') {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        return exited;
      },
    };
  }

  it('under the host’s one name, stay two when one restarts while the other is away', async () => {
    const owner = await newUser('same-name');
    const first = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }]);
    const secondConfig = path.join(first.dir, 'second.json');
    await cli(['init', '--server', baseUrl(), '--api-key', owner.apiKey, '--name', first.name], secondConfig);
    await cli(['db', 'add', 'other-db', '--uri', '-'], secondConfig, customer().uri(DB) + '\n');
    const agents = async () =>
      ((await api('GET', '/api/settings/system-status', { token: owner.token })).body.agents as any[]).filter(
        (a) => a.name === first.name,
      );
    let second = runConfig(secondConfig);
    try {
      const both = await eventually(async () => {
        const list = await agents();
        if (list.filter((a) => a.status === 'active').length !== 2)
          throw new Error(`${JSON.stringify(list)}\nsecond agent:\n${second.output().slice(-2000)}`);
        return list;
      }, 30_000);
      expect(await second.stop()).toBe(0);
      // The first restarts while the second is away: it must not take the second for its old self.
      await first.stop();
      await first.start();
      await waitAgentActive(owner.token, first.name);
      expect((await agents()).map((a) => a.id).sort()).toEqual(both.map((a) => a.id).sort());
      // The second comes back as itself, not as a new agent.
      second = runConfig(secondConfig);
      await eventually(async () => {
        const list = await agents();
        expect(list.map((a) => [a.id, a.status]).sort()).toEqual(both.map((a) => [a.id, 'active']).sort());
      }, 30_000);
    } finally {
      await second.stop();
    }
  });

  it('keep a status file and an identity each, and `status --config` reads its own', async () => {
    const owner = await newUser('shared-folder');
    const first = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }]);
    const secondConfig = path.join(first.dir, 'second.json');
    const secondName = uniqueName('e2e-second-');
    await cli(['init', '--server', baseUrl(), '--api-key', owner.apiKey, '--name', secondName], secondConfig);
    await cli(['db', 'add', 'other-db', '--uri', '-'], secondConfig, customer().uri(DB) + '\n');

    const second = runConfig(secondConfig);
    try {
      const secondAgent = await eventually(async () => {
        try {
          return await waitAgentActive(owner.token, secondName, 1000);
        } catch (err) {
          throw new Error(`${(err as Error).message}\nsecond agent:\n${second.output().slice(-2000)}`);
        }
      }, 30_000);
      const firstAgent = await waitAgentActive(owner.token, first.name);
      expect(secondAgent.id).not.toBe(firstAgent.id);

      const read = (file: string) => JSON.parse(fs.readFileSync(path.join(first.dir, file), 'utf8'));
      await eventually(async () => {
        expect(read('agent.status.json')).toMatchObject({ pid: first.child!.pid, agentId: firstAgent.id });
        expect(read('second.status.json')).toMatchObject({
          pid: second.pid,
          agentId: secondAgent.id,
          connected: true,
        });
      });
      const ids = ['agent.instance-id', 'second.instance-id'].map((f) =>
        fs.readFileSync(path.join(first.dir, f), 'utf8').trim(),
      );
      expect(ids[0]).not.toBe(ids[1]);

      expect(await cli(['status'], secondConfig)).toContain(`running (pid ${second.pid},`);
      expect(await cli(['status'], first.config)).toContain(`running (pid ${first.child!.pid},`);

      // The second stops; the first is still running and still says so.
      expect(await second.stop()).toBe(0);
      expect(await cli(['status'], secondConfig)).toMatch(/^not running/);
      expect(await cli(['status'], first.config)).toContain(`running (pid ${first.child!.pid},`);
      expect((await listed(owner.token, secondName)).status).toBe('offline');
      expect((await listed(owner.token, first.name)).status).toBe('active');
    } finally {
      await second.stop('SIGKILL');
    }
  });
});

describe('a database the agent cannot reach', () => {
  it('fails the backup with the reason, without the password, and the agent carries on', async () => {
    const owner = await newUser('unreachable');
    const password = uniqueName('pw-');
    const uri = `mongodb://app:${password}@127.0.0.1:1/${DB}?authMechanism=PLAIN&serverSelectionTimeoutMS=1000&connectTimeoutMS=1000`;
    const agent = await setupAgent(owner, [{ label: 'down-db', uri, check: false }]);
    const created = await triggerBackup(owner.token, 'down-db');
    const done = await waitBackup(owner.token, created._id, 30_000, agent);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/^Cannot connect to database "down-db": /);
    expect(done.error).not.toContain(password);
    expect(agent.output).not.toContain(password);
    expect(agent.child!.exitCode).toBeNull();
    await waitAgentActive(owner.token, agent.name);
  });
});

describe('a connection the server refuses', () => {
  const refusals = (agent: Agent) =>
    agent.logs().filter((l) => l.msg === 'the server refused the connection');

  it('a wrong API key or a suspended account is logged clearly and retried slowly', async () => {
    const owner = await newUser('refused');
    const agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }], { start: false });
    // A key that is not (or no longer) valid.
    expect(
      (await agentCli(['init', '--server', baseUrl(), '--api-key', 'cof_not_a_key'], agent.config)).code,
    ).toBe(0);
    await agent.start({ wait: false, env: { COFFER_AGENT_AUTH_RETRY_MS: '700' } });
    await eventually(async () => expect(refusals(agent).length).toBeGreaterThanOrEqual(2), 15_000);
    expect(refusals(agent)[0]).toMatchObject({
      level: 'error',
      error: 'Invalid API key',
      advice: /Settings → Security/,
    });
    const [first, second] = refusals(agent).map((l) => Date.parse(String(l.time)));
    expect(second! - first!).toBeGreaterThanOrEqual(600);
    expect(agent.output).not.toContain('cof_not_a_key');
    expect(agent.status()).toMatchObject({
      connected: false,
      lastError: expect.stringMatching(/Invalid API key/),
    });
    await agent.stop();

    // The right key, but the account is suspended.
    expect(
      (await agentCli(['init', '--server', baseUrl(), '--api-key', owner.apiKey], agent.config)).code,
    ).toBe(0);
    const admin = await adminToken();
    const ban = await api('PUT', `/api/admin/users/${owner.id}/ban`, {
      token: admin.token,
      body: { isBanned: true, banReason: 'e2e' },
    });
    expect(ban.status).toBe(200);
    agent.output = '';
    await agent.start({ wait: false, env: { COFFER_AGENT_AUTH_RETRY_MS: '700' } });
    await eventually(async () => expect(refusals(agent).length).toBeGreaterThanOrEqual(1), 15_000);
    expect(refusals(agent)[0]).toMatchObject({ error: 'Your account has been suspended' });
    expect(agent.output).not.toContain(owner.apiKey);
  });
});

describe('agent commands from the dashboard', () => {
  let owner: TestUser;
  let agent: Agent;
  let agentId: string;

  beforeAll(async () => {
    owner = await newUser('commands');
    agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }]);
    agentId = (await waitAgentActive(owner.token, agent.name)).id;
  });

  const manage = async (id: string, action: string) => {
    const res = await api('POST', `/api/agents/manage/${id}`, { token: owner.token, body: { action } });
    expect(res.status).toBe(200);
  };

  it('update: a development build (run by Node.js) says it cannot replace itself', async () => {
    await manage(agentId, 'update');
    const line = await agent.waitForLog((l) => l.msg === 'the update failed');
    expect(String(line.error)).toMatch(/runs as a Node\.js script .* install the binary/);
  });

  it('reset: a new instance id, registered as a new agent', async () => {
    const instanceFile = path.join(path.dirname(agent.config), 'agent.instance-id');
    const instanceBefore = fs.readFileSync(instanceFile, 'utf8');
    await manage(agentId, 'reset');
    const fresh = await eventually(async () => {
      const found = await waitAgentActive(owner.token, agent.name, 1000);
      expect(found.id).not.toBe(agentId);
      return found;
    }, 20_000);
    const agents = (await api('GET', '/api/settings/system-status', { token: owner.token })).body.agents;
    expect(agents.map((a: any) => a.id)).not.toContain(agentId);
    expect(fs.readFileSync(instanceFile, 'utf8')).not.toBe(instanceBefore);
    await eventually(async () =>
      expect(agent.status()).toMatchObject({ agentId: fresh.id, connected: true }),
    );
    agentId = fresh.id;
  });

  it('reset while the agent is away: its old identity is refused and it comes back as a new agent', async () => {
    await agent.stop();
    await manage(agentId, 'reset');
    agent.output = '';
    await agent.start({ wait: false });
    await agent.waitForLog(
      (l) => /connection of this agent was reset from the dashboard/.test(l.msg),
      20_000,
    );
    const fresh = await eventually(async () => {
      const found = await waitAgentActive(owner.token, agent.name, 1000);
      expect(found.id).not.toBe(agentId);
      return found;
    }, 20_000);
    agentId = fresh.id;
  });

  it('restart: the agent starts again as a new process and reconnects', async () => {
    const pidBefore = agent.status()!.pid;
    expect(pidBefore).toBe(agent.child!.pid);
    await manage(agentId, 'restart');
    await eventually(async () => {
      const s = agent.status();
      expect(s?.pid).not.toBe(pidBefore);
      expect(s).toMatchObject({ connected: true, agentId });
    }, 20_000);
    expect(agent.child!.exitCode).toBe(0);
    expect((await waitAgentActive(owner.token, agent.name)).id).toBe(agentId);
  });

  it("restart mails no 'Agent disconnected' alarm; an agent that dies without a word still does", async () => {
    const alarms = async () =>
      (await mailsTo(owner.email)).filter((m) => m.subject === 'Agent disconnected').length;
    const before = await alarms();
    const pidBefore = agent.status()!.pid;
    await manage(agentId, 'restart');
    await eventually(async () => {
      expect(agent.status()?.pid).not.toBe(pidBefore);
      expect(agent.status()).toMatchObject({ connected: true, agentId });
    }, 20_000);
    // The process dies without saying so: that disconnect is an alarm, and its mail comes after the
    // restart's event would have (one consumer handles the agent events in order).
    process.kill(agent.status()!.pid, 'SIGKILL');
    await eventually(async () => expect(await alarms()).toBeGreaterThan(before), 30_000);
    expect(await alarms()).toBe(before + 1);
  });
});
