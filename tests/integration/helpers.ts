import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AnswerOf } from './api-types';

export const baseUrl = () => {
  const url = process.env.COFFER_BASE_URL;
  if (!url)
    throw new Error('COFFER_BASE_URL is not set: run the tests through jest (globalSetup starts the stack)');
  return url;
};

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** Calls the gateway like the web app does; `ip` poses as a client address (X-Forwarded-For). */
export async function api<M extends string, P extends string, T = AnswerOf<M, P>>(
  method: M,
  path: P,
  opts: {
    token?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    ip?: string;
  } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined || opts.rawBody !== undefined) headers['content-type'] ??= 'application/json';
  headers['x-forwarded-for'] = opts.ip ?? randomIp();
  const res = await fetch(baseUrl() + path, {
    method,
    headers,
    body: opts.rawBody ?? (opts.body !== undefined ? JSON.stringify(opts.body) : undefined),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: body as T, headers: res.headers };
}

export const randomIp = () =>
  `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`;
export const uniqueEmail = (prefix = 'user') =>
  `${prefix}-${crypto.randomBytes(6).toString('hex')}@example.test`;

export interface TestUser {
  id: string;
  email: string;
  password: string;
  name: string;
  token: string;
  apiKey: string;
}

/** Registers a fresh user through the API. */
export async function newUser(prefix = 'user'): Promise<TestUser> {
  const email = uniqueEmail(prefix);
  const password = 'correct-horse-1';
  const name = 'Test User';
  const res = await api('POST', '/api/auth/register', { body: { name, email, password } });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id, email, password, name, token: res.body.token, apiKey: res.body.user.apiKey };
}

/**
 * Signs in as the admin the test stack was started with, once per test run: sign-ins are limited
 * per e-mail (product §9), and a whole run has more test files acting as the admin than that limit
 * allows in its window. The session is kept in the run's data folder for every jest worker.
 */
export async function adminSession(): Promise<{
  token: string;
  user: AnswerOf<'POST', '/api/auth/login'>['user'];
}> {
  const file = process.env.COFFER_DATA_DIR
    ? path.join(process.env.COFFER_DATA_DIR, 'admin-session.json')
    : null;
  if (file && fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
  const res = await api('POST', '/api/auth/login', {
    body: { email: process.env.COFFER_ADMIN_EMAIL, password: process.env.COFFER_ADMIN_PASSWORD },
  });
  if (res.status !== 200) throw new Error(`admin login failed: ${res.status} ${JSON.stringify(res.body)}`);
  const session = { token: res.body.token, user: res.body.user };
  if (file) {
    const tmp = `${file}.${process.pid}`;
    fs.writeFileSync(tmp, JSON.stringify(session));
    fs.renameSync(tmp, file);
  }
  return session;
}

/** The admin's id and token (see adminSession). */
export async function adminToken(): Promise<{ id: string; token: string }> {
  const { token, user } = await adminSession();
  return { id: user.id, token };
}

/** The id of the plan called `name` (Free, Pro, …) in the admin's plan list. */
export async function planId(name: string): Promise<string> {
  const admin = await adminToken();
  const res = await api('GET', '/api/admin/plans', { token: admin.token });
  const plan = res.body.find((p) => p.name === name);
  if (!plan) throw new Error(`no plan called ${name}: ${JSON.stringify(res.body)}`);
  return plan._id;
}

/** Retries an assertion until it passes or the time is up (events are asynchronous). */
export async function eventually<T>(fn: () => Promise<T>, timeoutMs = 10_000, intervalMs = 200): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}

export interface CapturedMail {
  id: string;
  subject: string;
  text: string;
  html: string;
  to: Array<{ address: string }>;
}

/** Waits until MailDev has received a mail to `address` matching `predicate`. */
export async function waitForMail(
  address: string,
  predicate: (m: CapturedMail) => boolean = () => true,
  timeoutMs = 15_000,
): Promise<CapturedMail> {
  return eventually(async () => {
    const res = await fetch(`${process.env.COFFER_MAILDEV_URL}/email`);
    const mails = (await res.json()) as CapturedMail[];
    const found = mails.find(
      (m) => m.to.some((t) => t.address.toLowerCase() === address.toLowerCase()) && predicate(m),
    );
    if (!found) throw new Error(`no mail to ${address} yet`);
    return found;
  }, timeoutMs);
}

/** Mails received so far for an address. */
export async function mailsTo(address: string): Promise<CapturedMail[]> {
  const res = await fetch(`${process.env.COFFER_MAILDEV_URL}/email`);
  const mails = (await res.json()) as CapturedMail[];
  return mails.filter((m) => m.to.some((t) => t.address.toLowerCase() === address.toLowerCase()));
}
