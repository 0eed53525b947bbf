// Shared helpers for browser tests: the real web app, served by the gateway of the test stack
// (tests/integration/global-setup.ts starts it), driven in Debian's Chromium through playwright-core.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { adminSession, api, randomIp, uniqueEmail } from '../integration/helpers';

export { adminToken, api, waitForMail } from '../integration/helpers';

// Browser flows take longer than jest's 5 s default (the jest project may set its own, larger value).
jest.setTimeout(90_000);

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Texts the web app shows (product §8), in one place so a wording change fails loudly here. */
export const TEXT = {
  signedOut: 'Signed out',
  sessionExpired: 'Session expired',
  suspended: 'Account Suspended',
  passwordUpdated: 'Password updated successfully!',
} as const;

export function appUrl(path = '/'): string {
  const base = process.env.COFFER_BASE_URL;
  if (!base)
    throw new Error('COFFER_BASE_URL is not set: run the tests through jest (globalSetup starts the stack)');
  return new URL(path, base).toString();
}

/** Starts headless Chromium (the system build, never a downloaded one). */
export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
}

/**
 * One Chromium for the test file: launched before its tests, closed after them. Call at the top
 * level of the file; the function it returns gives the browser inside the tests.
 */
export function browserForFile(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is started in beforeAll: use it inside a test');
    return browser;
  };
}

/**
 * A client of the stack's database for the test file (seeding rows the orchestrator would have
 * written): connected before its tests, closed after them.
 */
export function stackMongoForFile(): () => MongoClient {
  let client: MongoClient | undefined;
  beforeAll(async () => {
    client = await MongoClient.connect(process.env.COFFER_MONGO_URL!);
  });
  afterAll(async () => {
    await client?.close();
  });
  return () => {
    if (!client) throw new Error('the database client connects in beforeAll: use it inside a test');
    return client;
  };
}

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** browser console errors and page errors, for failure messages */
  errors: string[];
}

/**
 * A fresh browser context (own storage) and page. Each context poses as its own client address
 * (X-Forwarded-For; the test stack trusts loopback proxies) so per-IP rate limits of one test do
 * not leak into another.
 */
export async function newSession(
  browser: Browser,
  opts: { width?: number; height?: number } = {},
): Promise<BrowserSession> {
  const context = await browser.newContext({
    baseURL: appUrl('/'),
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 },
    extraHTTPHeaders: { 'x-forwarded-for': randomIp() },
    locale: 'en-US',
  });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  return { context, page, errors };
}

export interface UserCredentials {
  name: string;
  email: string;
  password: string;
}

/** Fresh random credentials (not registered yet). */
export function newUser(prefix = 'web'): UserCredentials {
  return {
    name: `Web ${crypto.randomBytes(3).toString('hex')}`,
    email: uniqueEmail(prefix),
    password: `pw-${crypto.randomBytes(6).toString('hex')}`,
  };
}

export interface RegisteredUser extends UserCredentials {
  id: string;
  token: string;
}

/** Fresh credentials, registered through the API (faster than the form when the form is not under test). */
export async function registeredUser(prefix = 'web'): Promise<RegisteredUser> {
  const user = newUser(prefix);
  const res = await api('POST', '/api/auth/register', { body: user });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...user, id: res.body.user.id, token: res.body.token };
}

/** Signs in through the /login form and waits for the page it lands on. */
export async function signIn(
  page: Page,
  user: Pick<UserCredentials, 'email' | 'password'>,
  landing = '/dashboard',
) {
  await page.goto('/login');
  await page.getByLabel('Email', { exact: true }).fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === landing);
}

/**
 * Signs the page in as the stack's admin by restoring the run's one admin session (see
 * adminSession: sign-ins per e-mail are rate limited), as a reload of a signed-in tab would. A test
 * that signs out must sign in with `signIn` instead: signing out ends the session on the server, for
 * every test sharing it.
 */
export async function signInAsAdmin(page: Page, landing = '/dashboard') {
  const { token, user } = await adminSession();
  await page.goto('/login');
  await page.evaluate(
    (record) => localStorage.setItem('coffer-vault', record),
    JSON.stringify({ token, user, timestamp: Date.now() }),
  );
  await page.goto(landing);
  await page.waitForURL((url) => url.pathname === landing);
}

/** Path of the page right now. */
export function pathname(page: Page): string {
  return new URL(page.url()).pathname;
}

/** The toast with this title (only one is ever shown). */
export function toast(page: Page, title: string) {
  return page.locator('[data-testid="toast"]').filter({ hasText: title });
}

/** Waits until the (first) element of the locator is visible. */
export async function visible(locator: Locator, timeout?: number): Promise<void> {
  await locator.first().waitFor({ state: 'visible', timeout });
}

/** Waits until the document title is exactly `title` (it is set just after each navigation). */
/** Whether the element lies inside the visible part of the page (what the user sees without scrolling). */
export async function inViewport(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return (
      r.height > 0 &&
      r.top >= 0 &&
      r.bottom <= window.innerHeight &&
      r.left >= 0 &&
      r.right <= window.innerWidth
    );
  });
}

export async function expectTitle(page: Page, title: string): Promise<void> {
  try {
    // Generous: on a loaded machine the title's effect can run seconds after the page shows.
    await page.waitForFunction((t) => document.title === t, title, { timeout: 30_000 });
  } catch {
    throw new Error(`expected title ${JSON.stringify(title)}, got ${JSON.stringify(await page.title())}`);
  }
}

/**
 * The user's /audit-logs row for `action`, reloading until it shows: entries are written from
 * events, a moment after the action. The wait is generous because a whole test run keeps this
 * 2-core machine saturated; if the row never comes, the error carries the audit service's own
 * warnings (late entries, failed handlers) so the failure says where the entry got stuck.
 */
export async function auditRow(page: Page, action: string, timeoutMs = 45_000): Promise<Locator> {
  if (pathname(page) !== '/audit-logs') await page.goto('/audit-logs');
  const row = page.getByTestId('audit-row').filter({ hasText: action });
  const until = Date.now() + timeoutMs;
  await page.getByText(/Page \d+ of \d+/).waitFor();
  while (!(await row.count())) {
    if (Date.now() > until) {
      throw new Error(
        `${action} never appeared on /audit-logs within ${timeoutMs / 1000} s${auditWarnings()}`,
      );
    }
    await page.waitForTimeout(500);
    await page.reload();
    await page.getByText(/Page \d+ of \d+/).waitFor();
  }
  return row.first();
}

function auditWarnings(): string {
  const file = path.join(process.env.COFFER_LOG_DIR ?? '', 'audit.log');
  if (!fs.existsSync(file)) return '';
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => /"level":(40|50|60)/.test(l))
    .slice(-15);
  return lines.length
    ? `\naudit service warnings:\n${lines.join('\n')}`
    : '\n(the audit service logged no warning)';
}
