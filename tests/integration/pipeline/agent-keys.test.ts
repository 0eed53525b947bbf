// An agent's registration and its key, from the dashboard's side: Regenerate API Key closes the
// sockets of the old key at once, Remove Agent deletes the record and disconnects the agent, and an
// agent set up again on the same host replaces its old registration.
import fs from 'node:fs';
import path from 'node:path';
import { api, baseUrl, eventually, newUser, waitForMail, type TestUser } from '../helpers';
import { agentCli, customerDbForFile, setupAgent, uniqueName, waitAgentActive, type Agent } from './harness';

jest.setTimeout(120_000);

const LABEL = 'keys-db';
const DB = uniqueName('keys_');
const customer = customerDbForFile();

const listed = async (user: TestUser): Promise<any[]> =>
  (await api('GET', '/api/settings/system-status', { token: user.token })).body.agents;

/** The server closed the agent's socket (not the agent, not the network). */
const closedByServer = (agent: Agent) =>
  agent.waitForLog((l) => l.msg === 'disconnected' && l.reason === 'io server disconnect', 15_000);

describe('Regenerate API Key', () => {
  it("closes the old key's agent at once; the agent says what to run and takes the new key without a restart", async () => {
    const owner = await newUser('rekey');
    const agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }], { start: false });
    // The slow retry is far away: only the config watcher can bring the new key in.
    await agent.start({ env: { COFFER_AGENT_AUTH_RETRY_MS: '600000', COFFER_AGENT_CONFIG_POLL_MS: '300' } });
    const { id } = await waitAgentActive(owner.token, agent.name);
    const pid = agent.child!.pid;

    const res = await api('POST', '/api/settings/regenerate-api-key', { token: owner.token });
    expect(res.status).toBe(200);
    const newKey: string = res.body.apiKey;

    await closedByServer(agent);
    const refused = await agent.waitForLog((l) => l.msg === 'the server refused the connection');
    const command = `coffer-agent init --server ${new URL(baseUrl()).origin}\`, which asks for it`;
    expect(refused).toMatchObject({ level: 'error', error: 'Invalid API key' });
    expect(String(refused.advice)).toContain(command);
    expect(String(refused.advice)).toContain('re-run the installer');
    // The dashboard learns why (it shows the command), and the mail does not promise a reconnect.
    await eventually(async () => {
      expect((await listed(owner)).find((a) => a.id === id)).toMatchObject({
        status: 'offline',
        offlineReason: 'api-key-replaced',
      });
    });
    const mail = await waitForMail(owner.email, (m) => m.subject === 'Agent disconnected', 30_000);
    expect(mail.text).toContain('because your API key was regenerated');
    expect(mail.text).toContain('cannot reconnect by itself');
    expect(mail.text).not.toContain('reconnects by itself');
    expect(agent.status()).toMatchObject({ connected: false });
    expect(agent.status()!.lastError).toContain(command);
    const status = await agentCli(['status'], agent.config);
    expect(status.stdout).toContain(command);

    // `init` with the new key: the running agent reconnects with it, as the same agent.
    expect((await agentCli(['init', '--server', baseUrl(), '--api-key', newKey], agent.config)).code).toBe(0);
    await agent.waitForLog((l) => l.msg === 'the API key changed in the config; reconnecting with it');
    expect((await waitAgentActive(owner.token, agent.name)).id).toBe(id);
    expect((await listed(owner)).find((a) => a.id === id)).not.toHaveProperty('offlineReason');
    await eventually(async () => expect(agent.status()).toMatchObject({ connected: true, agentId: id }));
    expect(agent.status()!.lastError).toBeUndefined();
    expect(agent.child!.pid).toBe(pid);
    expect(agent.child!.exitCode).toBeNull();
    expect(agent.output).not.toContain(newKey);
    expect(agent.output).not.toContain(owner.apiKey);
  });
});

describe('DELETE /api/agents/:agentId', () => {
  let owner: TestUser;
  let agent: Agent;
  let agentId: string;

  beforeAll(async () => {
    owner = await newUser('remove');
    agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }]);
    agentId = (await waitAgentActive(owner.token, agent.name)).id;
  });

  it('401 without a token, 400 for a bad id, 404 for another user’s agent', async () => {
    expect((await api('DELETE', `/api/agents/${agentId}`)).status).toBe(401);
    const bad = await api('DELETE', '/api/agents/nope', { token: owner.token });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Invalid agent id');
    const stranger = await newUser('remove-other');
    const other = await api('DELETE', `/api/agents/${agentId}`, { token: stranger.token });
    expect(other.status).toBe(404);
    expect((await listed(owner)).map((a) => a.id)).toContain(agentId);
  });

  it('removes the record and disconnects the agent, which registers again as a new agent', async () => {
    const res = await api('DELETE', `/api/agents/${agentId}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Agent removed' });
    await closedByServer(agent);
    expect((await listed(owner)).map((a) => a.id)).not.toContain(agentId);
    expect((await api('DELETE', `/api/agents/${agentId}`, { token: owner.token })).status).toBe(404);

    // Its key is still valid: on its reconnect it is a new agent (the old record stays gone).
    const back = await eventually(async () => {
      const found = await waitAgentActive(owner.token, agent.name, 1000);
      expect(found.id).not.toBe(agentId);
      return found;
    }, 20_000);
    expect((await listed(owner)).map((a) => a.id)).toEqual([back.id]);
  });
});

describe('an agent set up again on the same host', () => {
  it('replaces its old registration instead of adding an offline one', async () => {
    const owner = await newUser('reinit');
    const agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }]);
    const first = await waitAgentActive(owner.token, agent.name);
    await agent.stop();
    await eventually(async () => {
      expect((await listed(owner)).find((a) => a.id === first.id)).toMatchObject({ status: 'offline' });
    });
    // A fresh state folder: a new instance id, same name and hostname.
    fs.rmSync(path.join(path.dirname(agent.config), 'agent.instance-id'));
    await agent.start();
    const second = await waitAgentActive(owner.token, agent.name);
    expect(second.id).not.toBe(first.id);
    expect((await listed(owner)).map((a) => a.id)).toEqual([second.id]);
  });
});
