// The images' file trees, without Docker: for every service, deploy/ci/prod-tree.sh builds what
// deploy/Dockerfile puts into its image (the lockfile installed with `npm ci --omit=dev` for that
// workspace alone, then the compiled code), and every service is started from its tree in
// production mode against local servers. A dependency that is only a devDependency, a file the
// image leaves out, or a production check that refuses the configuration fails here, not at a
// customer's first deploy.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, TEST_ADMIN, type Stack } from '@coffer/local-stack';

const REPO = path.resolve(__dirname, '../../..');
const SERVICES = fs
  .readdirSync(path.join(REPO, 'services'))
  .filter((d) => fs.existsSync(path.join(REPO, 'services', d, 'src/main.ts')));

let work: string;
let stack: Stack | undefined;
const trees: Record<string, string> = {};

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-prod-tree-'));
  for (const svc of SERVICES) {
    const out = path.join(work, 'trees', svc);
    execFileSync('bash', [path.join(REPO, 'deploy/ci/prod-tree.sh'), svc, out], { stdio: 'pipe' });
    trees[svc] = path.join(out, 'services', svc);
  }
  stack = await startStack({
    repoRoot: REPO,
    dataDir: path.join(work, 'data'),
    ports: 'free',
    serviceDirs: trees,
    env: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      JWT_SECRET: randomBytes(32).toString('base64url'),
      API_KEY_PEPPER: randomBytes(32).toString('base64url'),
      TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
      COFFER_ADMIN_EMAIL: TEST_ADMIN.email,
      COFFER_ADMIN_PASSWORD: TEST_ADMIN.password,
    },
  });
}, 600_000);

afterAll(async () => {
  await stack?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('each tree holds its service and production dependencies only', () => {
  for (const svc of SERVICES) {
    const root = path.resolve(trees[svc]!, '../..');
    const has = (p: string) => fs.existsSync(path.join(root, p));
    expect({ svc, main: has(`services/${svc}/dist/main.js`) }).toEqual({ svc, main: true });
    // Dev tools and the test runner stay out of every image.
    for (const dev of ['typescript', 'jest', '@swc/core', 'vite', 'eslint']) {
      expect({ svc, dev, present: has(`node_modules/${dev}`) }).toEqual({ svc, dev, present: false });
    }
    for (const other of SERVICES.filter((o) => o !== svc)) {
      expect({ svc, other, present: has(`services/${other}/dist`) }).toEqual({ svc, other, present: false });
    }
  }
});

test('every service starts from its tree in production mode and the gateway serves the app and the API', async () => {
  // startStack resolved only after each service's /readyz answered 200.
  const app = stack!.urls.app;
  const page = await fetch(`${app}/`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<div id="root">');

  const email = `prod-tree-${Date.now()}@example.com`;
  const register = await fetch(`${app}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Prod Tree', email, password: 'a-long-password-1' }),
  });
  expect(register.status).toBe(201);
  const { token } = (await register.json()) as { token: string };
  const profile = await fetch(`${app}/api/user/profile`, { headers: { authorization: `Bearer ${token}` } });
  expect(profile.status).toBe(200);
  expect(await profile.json()).toMatchObject({ email, plan: expect.anything() });

  const sums = await fetch(`${app}/downloads/SHA256SUMS`);
  expect(sums.status).toBe(200);
  expect(await sums.text()).toContain('coffer-agent-linux-x64');
});
