import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, serviceIdentity, type RedisClient } from '@coffer/common';
import { buildGateway } from './build';
import { closeClients, serviceClients } from './clients';
import { loadGatewayConfig } from './config';

// The gateway's REST side as main.ts wires it, without Redis or the services behind it: what
// answers here never needed them (identity refuses before any call, the document is static).
describe('buildGateway', () => {
  const config = loadGatewayConfig();
  const clients = serviceClients(config, serviceIdentity('gateway', config));
  const { app } = buildGateway({
    config,
    clients,
    redis: {} as RedisClient,
    log: createLogger('gateway-test', 'silent'),
  });
  const server = http.createServer(app);
  let base = '';

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    closeClients(clients);
    await new Promise((resolve) => server.close(resolve));
  });

  it('puts the user routes behind the session check', async () => {
    const res = await fetch(`${base}/api/user/profile`);
    expect(res.status).toBe(401);
  });

  it('documents the routes it registered', async () => {
    const res = await fetch(`${base}/api/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/auth/login', '/api/user/profile', '/api/admin/users']),
    );
  });
});
