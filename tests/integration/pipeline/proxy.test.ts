// The agent on a corporate network: it reaches Coffer only through a forward proxy (tinyproxy,
// which logs every CONNECT) named by HTTPS_PROXY, and Coffer's certificate is signed by a private
// CA the agent trusts through its caFile setting. The Socket.IO connection, the backup upload and
// the release check (fetch) each go through the proxy; NO_PROXY sends a host around it; without
// the caFile the certificate is refused.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { baseUrl, eventually, newUser, type TestUser } from '../helpers';
import { seedDatabase } from '../../../agent/src/testing/database-fixtures';
import {
  agentCli,
  customerDbForFile,
  setupAgent,
  triggerBackup,
  uniqueName,
  waitBackup,
  type Agent,
} from './harness';

jest.setTimeout(180_000);

const DB = uniqueName('proxied_');
let dir: string;
let front: tls.Server;
let proxy: ChildProcess;
let proxyLog: string;
let proxyUrl: string;
let server: string;
const customer = customerDbForFile();
let owner: TestUser;
let agent: Agent;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** CONNECT requests tinyproxy logged for the TLS front. */
const tunnels = () =>
  fs.existsSync(proxyLog)
    ? fs
        .readFileSync(proxyLog, 'utf8')
        .split('\n')
        .filter((l) => l.includes(`CONNECT ${new URL(server).host} `)).length
    : 0;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-proxy-'));
  // A private CA and a certificate it signs for localhost.
  const subject = (cn: string) => ['-subj', `/CN=${cn}`];
  const f = (n: string) => path.join(dir, n);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    ...subject('Coffer test CA'),
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f('srv.key'),
    '-out',
    f('srv.csr'),
    ...subject('localhost'),
  );
  fs.writeFileSync(f('ext'), 'subjectAltName=DNS:localhost\n');
  openssl(
    'x509',
    '-req',
    '-days',
    '2',
    '-in',
    f('srv.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f('srv.pem'),
    '-extfile',
    f('ext'),
  );

  // Coffer behind TLS with the private CA's certificate: each connection is passed to the gateway.
  const gateway = new URL(baseUrl());
  front = tls.createServer(
    { key: fs.readFileSync(f('srv.key')), cert: fs.readFileSync(f('srv.pem')) },
    (c) => {
      const up = net.connect(Number(gateway.port), gateway.hostname);
      c.pipe(up).pipe(c);
      const close = () => (c.destroy(), up.destroy());
      c.on('error', close);
      up.on('error', close);
    },
  );
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  server = `https://localhost:${(front.address() as AddressInfo).port}`;

  const port = await freePort();
  proxyLog = f('tinyproxy.log');
  fs.writeFileSync(
    f('tinyproxy.conf'),
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 600',
      `LogFile "${proxyLog}"`,
      'LogLevel Connect',
      'MaxClients 50',
    ].join('\n') + '\n',
  );
  proxy = spawn('tinyproxy', ['-d', '-c', f('tinyproxy.conf')], { stdio: 'ignore' });
  proxyUrl = `http://127.0.0.1:${port}`;
  await eventually(
    () =>
      new Promise<void>((resolve, reject) =>
        net
          .connect(port, '127.0.0.1')
          .on('connect', function (this: net.Socket) {
            this.destroy();
            resolve();
          })
          .on('error', reject),
      ),
    10_000,
  );

  await seedDatabase(customer().client, DB, { events: 200 });
  owner = await newUser('proxied');
});

afterAll(async () => {
  proxy?.kill('SIGTERM');
  await new Promise((r) => front?.close(r));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the agent behind a forward proxy, with a private CA', () => {
  it('connects, backs up and checks for updates through the proxy', async () => {
    agent = await setupAgent(owner, [{ label: 'proxied-db', uri: customer().uri(DB) }], {
      start: false,
      server,
      initArgs: ['--ca-file', path.join(dir, 'ca.pem')],
    });
    const env = { HTTPS_PROXY: proxyUrl, NO_PROXY: '' };
    await agent.start({ env });
    const starting = await agent.waitForLog((l) => l.msg === 'starting');
    expect(starting).toMatchObject({ proxy: proxyUrl, caFile: path.join(dir, 'ca.pem') });
    const afterConnect = tunnels();
    expect(afterConnect).toBeGreaterThanOrEqual(1); // the Socket.IO connection

    const backup = await triggerBackup(owner.token, 'proxied-db');
    const done = await waitBackup(owner.token, backup._id, 120_000, agent);
    expect({ status: done.status, error: done.error }).toEqual({ status: 'completed', error: undefined });
    expect(tunnels()).toBeGreaterThan(afterConnect); // the upload

    const beforeCheck = tunnels();
    const check = await agentCli(['update', '--check'], agent.config, '', env);
    expect(check.code).toBe(0);
    expect(tunnels()).toBeGreaterThan(beforeCheck); // release.json, by fetch
  });

  it('goes around the proxy for the hosts in NO_PROXY', async () => {
    const before = tunnels();
    const check = await agentCli(['update', '--check'], agent.config, '', {
      HTTPS_PROXY: proxyUrl,
      NO_PROXY: 'localhost',
    });
    expect(check.code).toBe(0);
    expect(tunnels()).toBe(before);
  });

  it('refuses the certificate without the caFile', async () => {
    const config = JSON.parse(fs.readFileSync(agent.config, 'utf8'));
    delete config.caFile;
    const other = path.join(dir, 'no-ca.json');
    fs.writeFileSync(other, JSON.stringify(config), { mode: 0o600 });
    const check = await agentCli(['update', '--check'], other, '', { HTTPS_PROXY: proxyUrl, NO_PROXY: '' });
    expect(check.code).not.toBe(0);
    expect(check.stderr).toMatch(/certificate/i);
  });
});
