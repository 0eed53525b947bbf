import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { api, eventually, newUser } from './helpers';

// Against the running stack: the gateway's request id, access log and metrics, and the id reaching
// the auth service's log. Log files are the stack's own (COFFER_LOG_DIR, one per process).

type Line = Record<string, unknown>;
const logDir = () => process.env.COFFER_LOG_DIR!;

/** The JSON lines a process has logged so far (its file also holds non-JSON start-up output). */
function logLines(proc: string): Line[] {
  const text = fs.readFileSync(path.join(logDir(), `${proc}.log`), 'utf8');
  return text.split('\n').flatMap((l) => {
    if (!l.startsWith('{')) return [];
    try {
      return [JSON.parse(l) as Line];
    } catch {
      return [];
    }
  });
}

/** The gateway that answers COFFER_BASE_URL (the first) and its ops port, from its "ready" line. */
function firstGateway(): { proc: string; opsPort: number } {
  const proc = fs.existsSync(path.join(logDir(), 'gateway-1.log')) ? 'gateway-1' : 'gateway';
  const ready = logLines(proc).find((l) => typeof l.opsPort === 'number' && String(l.msg).endsWith(' ready'));
  if (!ready) throw new Error(`no ready line in ${proc}.log`);
  return { proc, opsPort: ready.opsPort as number };
}

const loginWith = (email: string, password: string, requestId: string) =>
  api('POST', '/api/auth/login', { body: { email, password }, headers: { 'x-request-id': requestId } });

describe('request ids', () => {
  it('answers with the id the client sent and carries it into the gateway and auth logs of that login', async () => {
    const user = await newUser('obs');
    const requestId = `abc123-${crypto.randomBytes(6).toString('hex')}`;
    const res = await loginWith(user.email, user.password, requestId);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(requestId);

    const { proc } = firstGateway();
    const access = await eventually(async () => {
      const line = logLines(proc).find((l) => l.requestId === requestId && l.msg === 'request');
      if (!line) throw new Error('no access-log line yet');
      return line;
    });
    expect(access).toMatchObject({
      method: 'POST',
      route: '/api/auth/login',
      status: 200,
      service: 'gateway',
    });
    expect(access.durationMs).toEqual(expect.any(Number));

    const authLine = await eventually(async () => {
      const line = logLines('auth').find((l) => l.requestId === requestId);
      if (!line) throw new Error('no auth line yet');
      return line;
    });
    expect(authLine).toMatchObject({ service: 'auth', rpc: 'login', grpcCode: 'OK' });
  });

  it('makes its own id when the client sends none or one it cannot trust', async () => {
    const none = await api('GET', '/api/health/not-a-route');
    expect(none.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const forged = await api('GET', '/api/health/not-a-route', {
      headers: { 'x-request-id': `${'x'.repeat(200)}` },
    });
    expect(forged.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const spaced = await api('GET', '/api/health/not-a-route', { headers: { 'x-request-id': 'a "b" c' } });
    expect(spaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('names the signed-in user on the access-log line, and the route by its template', async () => {
    const user = await newUser('obs');
    const requestId = `abc123-${crypto.randomBytes(6).toString('hex')}`;
    const agentId = crypto.randomBytes(12).toString('hex');
    const res = await api('DELETE', `/api/agents/${agentId}`, {
      token: user.token,
      headers: { 'x-request-id': requestId },
    });
    expect(res.status).toBe(404);
    const line = await eventually(async () => {
      const found = logLines(firstGateway().proc).find(
        (l) => l.requestId === requestId && l.msg === 'request',
      );
      if (!found) throw new Error('no access-log line yet');
      return found;
    });
    expect(line).toMatchObject({ route: '/api/agents/:agentId', status: 404, userId: user.id });
    expect(JSON.stringify(line)).not.toContain(agentId);
  });
});

describe('metrics and secrets', () => {
  it("serves the HTTP histogram on the gateway's ops port, labelled by route template", async () => {
    const user = await newUser('obs');
    await api('DELETE', `/api/agents/${crypto.randomBytes(12).toString('hex')}`, { token: user.token });
    const { opsPort } = firstGateway();
    const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
    const series = text.split('\n').filter((l) => l.startsWith('http_request_duration_seconds_count{'));
    const labelled = (route: string, status: string) =>
      series.some((l) => l.includes(`route="${route}"`) && l.includes(`status="${status}"`));
    expect(labelled('/api/auth/register', '201')).toBe(true);
    expect(labelled('/api/agents/:agentId', '404')).toBe(true);
    // No raw URL ever becomes a label: a 24-hex id would mean one series per object.
    expect(series.filter((l) => /[0-9a-f]{24}/.test(l))).toEqual([]);
    expect(text).toContain('grpc_client_handling_seconds_bucket{');
    expect(text).toMatch(/^coffer_agents_connected\{service="gateway"\} \d+/m);
  });

  it('keeps the password and the token a request used out of every log line', async () => {
    const user = await newUser('obs');
    const requestId = `abc123-${crypto.randomBytes(6).toString('hex')}`;
    const res = await loginWith(user.email, user.password, requestId);
    expect(res.status).toBe(200);
    const token = (res.body as { token: string }).token;
    await api('GET', '/api/user/profile', { token, headers: { 'x-request-id': requestId } });
    await eventually(async () => {
      const lines = logLines(firstGateway().proc).filter((l) => l.requestId === requestId);
      if (lines.length < 2) throw new Error('both requests not logged yet');
    });
    for (const file of fs.readdirSync(logDir()).filter((f) => f.endsWith('.log'))) {
      const text = fs.readFileSync(path.join(logDir(), file), 'utf8');
      expect({ file, password: text.includes(user.password) }).toEqual({ file, password: false });
      expect({ file, token: text.includes(token) }).toEqual({ file, token: false });
      expect({ file, firstToken: text.includes(user.token) }).toEqual({ file, firstToken: false });
    }
  });
});
