import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { createLogger } from '@coffer/common';
import { auth } from '@coffer/proto';
import { errorHandler } from './errors';
import { activeAccount } from '../testing/account-state';
import { identity } from './identity';
import { RouteTable } from './route';
import { stepUpGuard } from './step-up';

const SECRET = 'route-test-secret-0123456789abcdefgh';
const ADMIN = '64b7f0c2a1b2c3d4e5f60718';

// The route table's own refusals around two-factor sign-in, on a real Express server: an admin who
// must set it up first is refused admin routes (not their own account's), and `stepUp` routes ask
// for the second factor when it is on.
describe('route table: two-factor sign-in', () => {
  const account = { twoFactorEnabled: false, twoFactorEnrolmentRequired: true };
  const id = identity({
    jwtSecret: SECRET,
    cacheMs: 0,
    accountState: async () =>
      activeAccount({
        userId: ADMIN,
        role: auth.Role.ROLE_ADMIN,
        email: 'root@example.com',
        name: 'Root',
        ...account,
      }),
    resolveApiKey: async () => {
      throw new Error('unused');
    },
  });
  const table = new RouteTable(
    id,
    stepUpGuard({ jwtSecret: SECRET, attempts: async () => {}, verifyCode: async () => {} }),
  );
  const ok = z.object({ ok: z.boolean() });
  for (const [path, access, stepUp] of [
    ['/admin-thing', 'admin', false],
    ['/own-thing', 'user', false],
    ['/destructive-thing', 'user', true],
  ] as const)
    table.add({
      method: 'post',
      path,
      operationId: path.slice(1),
      summary: path,
      tag: 'test',
      access,
      stepUp,
      response: ok,
      handler: async () => ({ ok: true }),
    });
  const app = express();
  const router = express.Router();
  table.mount(router);
  app.use(router);
  app.use(errorHandler(createLogger('route-test', 'silent')));
  const server = http.createServer(app);
  let base = '';
  const token = jwt.sign({ sv: 0, sid: 's1' }, SECRET, {
    algorithm: 'HS256',
    subject: ADMIN,
    expiresIn: 300,
  });
  const post = async (path: string) => {
    const res = await fetch(base + path, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as { code?: string } };
  };

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses admin routes to an admin who must set up two-factor sign-in first, not their own', async () => {
    expect(await post('/admin-thing')).toEqual({
      status: 403,
      body: expect.objectContaining({ code: 'TWO_FACTOR_ENROLMENT_REQUIRED' }),
    });
    expect(await post('/own-thing')).toEqual({ status: 200, body: { ok: true } });
    account.twoFactorEnrolmentRequired = false;
    expect(await post('/admin-thing')).toEqual({ status: 200, body: { ok: true } });
  });

  it('asks for a step-up on a stepUp route only when two-factor sign-in is on', async () => {
    account.twoFactorEnabled = false;
    expect((await post('/destructive-thing')).status).toBe(200);
    account.twoFactorEnabled = true;
    expect(await post('/destructive-thing')).toEqual({
      status: 403,
      body: expect.objectContaining({ code: 'STEP_UP_REQUIRED' }),
    });
    expect((await post('/own-thing')).status).toBe(200);
  });
});
