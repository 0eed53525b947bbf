import { io } from 'socket.io-client';
import { api, baseUrl, newUser } from './helpers';

describe('gateway', () => {
  it('serves an OpenAPI document listing every route it serves', async () => {
    const res = await api('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    for (const [path, method] of [
      ['/api/auth/login', 'post'],
      ['/api/auth/reset-password/{token}', 'get'],
      ['/api/user/profile', 'get'],
      ['/api/user/audit-logs', 'get'],
      ['/api/admin/users/{id}/ban', 'put'],
      ['/api/settings/plans', 'get'],
    ]) {
      expect(res.body.paths[path!]?.[method!]).toBeDefined();
    }
    expect(
      res.body.paths['/api/auth/register'].post.requestBody.content['application/json'].schema.required,
    ).toEqual(expect.arrayContaining(['name', 'email', 'password']));
  });

  it('sends standard security headers', async () => {
    const res = await api('GET', '/api/settings/plans');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('answers unknown API paths with a JSON 404', async () => {
    const res = await api('GET', '/api/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('accepts Socket.IO connections only with a valid session token', async () => {
    const u = await newUser();
    const connect = (token: string) =>
      new Promise<string>((resolve) => {
        const s = io(baseUrl(), {
          path: '/api/socket.io',
          auth: { token },
          reconnection: false,
          transports: ['websocket'],
        });
        s.on('connect', () => {
          s.close();
          resolve('connected');
        });
        s.on('connect_error', (err) => {
          s.close();
          resolve(err.message);
        });
      });
    expect(await connect(u.token)).toBe('connected');
    expect(await connect('bad-token')).toBe('Invalid or expired token');
  });
});

describe('agent downloads', () => {
  it('serves the installer and the single-file Linux agent the setup wizard links to', async () => {
    const installer = await fetch(`${baseUrl()}/downloads/install.sh`);
    expect(installer.status).toBe(200);
    expect(await installer.text()).toMatch(/coffer-agent init --server/);
    const agent = await fetch(`${baseUrl()}/downloads/coffer-agent-linux-x64`);
    expect(agent.status).toBe(200);
    expect((await agent.text()).startsWith('#!/usr/bin/env node')).toBe(true);
  });

  it('says the Windows agent is not available yet', async () => {
    const res = await api('GET', '/downloads/coffer-agent-windows-x64.exe');
    expect(res.status).toBe(404);
    expect(res.body.message).toMatch(/Windows agent is not available yet/);
  });
});
