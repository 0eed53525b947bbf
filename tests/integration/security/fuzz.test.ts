// API fuzzing (issue 15): schemathesis generates requests from the gateway's OpenAPI document and
// sends them unauthenticated, as a user and as an admin, against a stack of this file's own (the
// admin run bans and deletes whatever users it finds, so never the shared one). Bounded: at least
// MIN_REQUESTS requests per run; it fails on any response >= 500 and any response that breaks the
// schema its operation documents.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, TEST_ADMIN, type Stack } from '@coffer/local-stack';
import { TEST_STACK_ENV } from '../stack-env';

jest.setTimeout(600_000);

const REPO = path.resolve(__dirname, '../../..');
const SCHEMA = path.join(REPO, 'services/gateway/openapi.json');
const MIN_REQUESTS = 5000;
/** Per operation and run; with the coverage phase this gives well over MIN_REQUESTS in all. */
const MAX_EXAMPLES = Number(process.env.COFFER_FUZZ_MAX_EXAMPLES ?? 40);
const WORKERS = process.env.COFFER_FUZZ_WORKERS ?? '2';
/** The two the suite promises; COFFER_FUZZ_CHECKS adds others (e.g. status_code_conformance) for a look. */
const CHECKS = process.env.COFFER_FUZZ_CHECKS ?? 'not_a_server_error,response_schema_conformance';
const SEED = Number(process.env.COFFER_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const HOW_TO_GET = 'Install it with `pip install schemathesis==4.32.5` (deploy/local/test.sh does).';

let stack: Stack;
let dataDir: string;
let reportRoot: string;

beforeAll(async () => {
  if (spawnSync('sh', ['-c', 'command -v schemathesis']).status !== 0)
    throw new Error(`schemathesis not found on PATH. ${HOW_TO_GET}`);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-fuzz-'));
  reportRoot = path.join(dataDir, 'reports');
  // The per-account and per-address limits would turn most generated requests into 429s: this
  // stack raises them, so the fuzzer reaches the handlers (the limits have their own tests).
  const unlimited = '1000000';
  stack = await startStack({
    repoRoot: REPO,
    dataDir,
    ports: 'free',
    env: {
      ...TEST_STACK_ENV,
      LOG_LEVEL: 'warn',
      RATE_LOGIN_PER_IP: unlimited,
      RATE_LOGIN_PER_EMAIL: unlimited,
      RATE_FORGOT_PER_IP: unlimited,
      RATE_FORGOT_PER_EMAIL: unlimited,
      RATE_PASSWORD_PER_USER: unlimited,
      RATE_REGISTER_PER_IP: unlimited,
      RATE_2FA_PER_USER: unlimited,
      RATE_2FA_PER_IP: unlimited,
    },
  });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  if (dataDir && !process.env.COFFER_KEEP_TEST_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
});

async function post(pathname: string, body: unknown): Promise<any> {
  const res = await fetch(stack.urls.app + pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${pathname}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

interface RunResult {
  label: string;
  requests: number;
  serverErrors: Array<{ method: string; url: string; status: number }>;
  /** Failed checks as schemathesis reports them (JUnit <failure> texts). */
  failures: string[];
  errors: string[];
  exitCode: number | null;
}

/** One schemathesis run; counts come from its HAR (every request) and JUnit (every failed check). */
async function fuzz(
  label: string,
  headers: Record<string, string>,
  extra: string[] = [],
): Promise<RunResult> {
  const dir = path.join(reportRoot, label);
  fs.mkdirSync(dir, { recursive: true });
  const args = [
    'run',
    SCHEMA,
    '--url',
    stack.urls.app,
    '--checks',
    CHECKS,
    '--phases',
    'examples,coverage,fuzzing',
    '--max-examples',
    String(MAX_EXAMPLES),
    '--workers',
    WORKERS,
    '--seed',
    String(SEED),
    '--no-shrink',
    '--generation-database',
    'none',
    '--request-timeout',
    '30',
    '--report',
    'junit,har',
    '--report-dir',
    dir,
    '--no-color',
    '--output-truncate',
    'true',
    ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
    ...extra,
  ];
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    // In the report folder: schemathesis keeps a cache (.schemathesis/) in its working directory.
    const child = spawn('schemathesis', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.on('error', reject);
    child.on('close', (code) => {
      fs.writeFileSync(path.join(dir, 'output.txt'), out);
      resolve(code);
    });
  });

  const harFile = fs.readdirSync(dir).find((n) => n.startsWith('har'));
  const junitFile = fs.readdirSync(dir).find((n) => n.startsWith('junit'));
  if (!harFile || !junitFile)
    throw new Error(
      `schemathesis (${label}) left no report (exit ${exitCode}):\n${fs.readFileSync(path.join(dir, 'output.txt'), 'utf8').slice(-3000)}`,
    );
  const entries: any[] = JSON.parse(fs.readFileSync(path.join(dir, harFile), 'utf8')).log.entries;
  const junit = fs.readFileSync(path.join(dir, junitFile), 'utf8');
  const texts = (tag: string) =>
    [...junit.matchAll(new RegExp(`<${tag}\\b[^>]*?(?:/>|>([\\s\\S]*?)</${tag}>)`, 'g'))].map((m) => {
      const message = /message="([^"]*)"/.exec(m[0])?.[1] ?? '';
      return `${message} ${m[1] ?? ''}`.trim().slice(0, 1500);
    });
  return {
    label,
    requests: entries.length,
    serverErrors: entries
      .filter((e) => e.response.status >= 500)
      .map((e) => ({ method: e.request.method, url: e.request.url, status: e.response.status })),
    failures: texts('failure'),
    errors: texts('error'),
    exitCode,
  };
}

describe('the OpenAPI document under schemathesis', () => {
  it('answers every generated request without a 5xx and within its documented schema', async () => {
    const results: RunResult[] = [];
    results.push(await fuzz('anonymous', {}));

    // The user's run changes only its own account: its token stays good for the whole run (a
    // password change needs the current password, which the fuzzer does not know; signing out is
    // left out, as it would end the run's session: the authorisation matrix calls it).
    const signedIn = ['--exclude-operation-id', 'logout'];
    const user = await post('/api/auth/register', {
      name: 'Fuzz User',
      email: 'fuzz-user@example.test',
      password: 'correct-horse-1',
    });
    results.push(
      await fuzz('user', { Authorization: `Bearer ${user.token}`, 'X-Api-Key': user.user.apiKey }, signedIn),
    );

    // Last: the admin's run bans and deletes the users it finds.
    const admin = await post('/api/auth/login', { email: TEST_ADMIN.email, password: TEST_ADMIN.password });
    results.push(await fuzz('admin', { Authorization: `Bearer ${admin.token}` }, signedIn));

    const total = results.reduce((n, r) => n + r.requests, 0);
    const serverErrors = results.flatMap((r) => r.serverErrors.map((e) => ({ run: r.label, ...e })));
    const failures = results.flatMap((r) => r.failures.map((f) => `${r.label}: ${f}`));
    const errors = results.flatMap((r) => r.errors.map((f) => `${r.label}: ${f}`));
    console.log(
      [
        `API fuzzing (schemathesis, seed ${SEED}, ${MAX_EXAMPLES} examples per operation):`,
        ...results.map(
          (r) =>
            `  ${r.label.padEnd(9)} ${String(r.requests).padStart(6)} requests, ${r.serverErrors.length} >= 500, ${r.failures.length} failed checks, ${r.errors.length} errors`,
        ),
        `  total     ${String(total).padStart(6)} requests, ${serverErrors.length} >= 500, ${failures.length} failed checks`,
        ...failures.slice(0, 30),
        ...errors.slice(0, 10),
      ].join('\n'),
    );
    expect(serverErrors.slice(0, 20)).toEqual([]);
    expect(failures.slice(0, 20)).toEqual([]);
    expect(errors.slice(0, 10)).toEqual([]);
    expect(total).toBeGreaterThanOrEqual(MIN_REQUESTS);
  });
});
