// The registration flood of the security probe (issue 21): 80 handshakes at once from one API key
// and one address, against the real gateway and orchestrator. Every other account's agent still
// registers within the time an agent waits, and the account's caps hold.
import crypto from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import { AGENT_NAMESPACE, LIMITS, SOCKET_IO_PATH, type RegisteredMessage } from '@coffer/contracts';
import { api, baseUrl, newUser, randomIp } from '../helpers';

jest.setTimeout(180_000);

/** An agent's connection, as `coffer-agent` opens it (20 s to be registered, no retries here). */
function agentSocket(apiKey: string, address: string, name: string, databases: string[]): Socket {
  return io(`${baseUrl()}${AGENT_NAMESPACE}`, {
    path: SOCKET_IO_PATH,
    auth: { apiKey, instanceId: `flood-${crypto.randomBytes(6).toString('hex')}`, name, databases },
    extraHeaders: { 'x-forwarded-for': address },
    transports: ['websocket'],
    reconnection: false,
    timeout: 20_000,
    forceNew: true,
  });
}

/** Registered (with the answer) or refused (with why), whichever comes first. */
const outcome = (s: Socket) =>
  new Promise<{ registered?: RegisteredMessage; refused?: string }>((resolve) => {
    s.once('registered', (registered: RegisteredMessage) => resolve({ registered }));
    s.once('connect_error', (err: Error) => resolve({ refused: err.message }));
  });

describe('a flood of agent handshakes from one key', () => {
  const sockets: Socket[] = [];
  afterAll(() => sockets.forEach((s) => s.close()));

  it("leaves other accounts' agents registering and holds the account's caps", async () => {
    const flooder = await newUser('flood');
    const bystander = await newUser('bystander');
    const from = randomIp();
    const flood = Array.from({ length: 80 }, (_, i) => {
      const s = agentSocket(flooder.apiKey, from, `flood-${i}`, [`db-${i}-a`, `db-${i}-b`, `db-${i}-c`]);
      sockets.push(s);
      return outcome(s);
    });

    // While the flood is handled, another account's agent registers in the time an agent waits.
    const other = agentSocket(bystander.apiKey, randomIp(), 'bystander', ['shop']);
    sockets.push(other);
    const answer = await outcome(other);
    expect(answer.refused).toBeUndefined();
    expect(answer.registered?.databases).toEqual([{ name: 'shop', isActive: true }]);

    const results = await Promise.all(flood);
    const registered = results.filter((r) => r.registered).length;
    expect(registered).toBeGreaterThan(0);
    const status = await api('GET', '/api/settings/system-status', { token: flooder.token });
    const databases = await api('GET', '/api/settings/databases', { token: flooder.token });
    expect(status.body.agents.length).toBeLessThanOrEqual(LIMITS.agentsPerAccount);
    expect(databases.body.length).toBeLessThanOrEqual(LIMITS.databasesPerAccount);
    // What was refused was told why, in words the agent logs.
    for (const r of results.filter((x) => x.refused)) expect(r.refused).toMatch(/\w/);
  });
});
