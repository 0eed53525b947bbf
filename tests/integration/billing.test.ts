// Billing through Stripe against a real gateway: a stack of its own with STRIPE_* set (the shared
// test stack has no billing), Stripe's API played by stripe-mock (Checkout and subscription calls),
// and webhooks signed with the stripe package's own test helper.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import Stripe from 'stripe';
import { startStack, startStripeMock, TEST_ADMIN, type RunningServer, type Stack } from '@coffer/local-stack';
import { TEST_STACK_ENV } from './stack-env';
import { eventually as retried } from './helpers';

const REPO = path.resolve(__dirname, '../..');
const WEBHOOK_SECRET = `whsec_${crypto.randomBytes(24).toString('hex')}`;
const PRICES = { starter: 'price_starter_test', pro: 'price_pro_test', business: 'price_business_test' };
const PERIOD_END = 1_798_761_600; // 2027-01-01T00:00:00Z
const stripe = new Stripe('sk_test_cofferIntegration123');

let stack: Stack;
let stripeMock: RunningServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-billing-'));
  stripeMock = await startStripeMock({ dataDir });
  stack = await startStack({
    repoRoot: REPO,
    dataDir,
    ports: 'free',
    env: {
      ...TEST_STACK_ENV,
      LOG_LEVEL: 'warn',
      STRIPE_SECRET_KEY: 'sk_test_cofferIntegration123',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PRICE_STARTER: PRICES.starter,
      STRIPE_PRICE_PRO: PRICES.pro,
      STRIPE_PRICE_BUSINESS: PRICES.business,
      STRIPE_API_URL: stripeMock.url,
    },
  });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await stripeMock?.stop();
  if (dataDir && !process.env.COFFER_KEEP_TEST_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
});

async function call(
  method: string,
  url: string,
  opts: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {
    'x-forwarded-for': `10.9.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`,
    ...opts.headers,
  };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(stack.urls.app + url, {
    method,
    headers,
    body: opts.raw ?? (opts.body !== undefined ? JSON.stringify(opts.body) : undefined),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

/** Its own stack's events, waited for a little longer than the shared stack's. */
const eventually = <T>(fn: () => Promise<T>) => retried(fn, 15_000);

async function newUser() {
  const email = `billing-${crypto.randomBytes(6).toString('hex')}@example.test`;
  const res = await call('POST', '/api/auth/register', {
    body: { name: 'Bill Payer', email, password: 'correct-horse-1' },
  });
  expect(res.status).toBe(201);
  return { id: res.body.user.id as string, token: res.body.token as string, email };
}

async function plans(): Promise<Record<string, { _id: string; name: string }>> {
  const res = await call('GET', '/api/settings/plans');
  return Object.fromEntries(res.body.map((p: { _id: string; name: string }) => [p.name.toLowerCase(), p]));
}

let seq = 0;
/** Posts a webhook the way Stripe does: the raw JSON and its Stripe-Signature header. */
function webhook(type: string, object: Record<string, unknown>, opts: { id?: string; secret?: string } = {}) {
  const payload = JSON.stringify({
    id: opts.id ?? `evt_${Date.now()}_${++seq}`,
    object: 'event',
    api_version: '2025-10-29.clover',
    type,
    data: { object },
  });
  const signature = stripe.webhooks.generateTestHeaderString({
    payload,
    secret: opts.secret ?? WEBHOOK_SECRET,
  });
  return call('POST', '/api/billing/webhook', {
    raw: payload,
    headers: { 'stripe-signature': signature, 'content-type': 'application/json; charset=utf-8' },
  });
}

const session = (userId: string, planId: string, subscription: string) => ({
  id: `cs_test_${subscription}`,
  object: 'checkout.session',
  mode: 'subscription',
  payment_status: 'paid',
  client_reference_id: userId,
  customer: `cus_${subscription}`,
  subscription,
  metadata: { userId, planId },
});
const invoice = (subscription: string, price: string, periodEnd = PERIOD_END) => ({
  id: `in_${subscription}_${periodEnd}`,
  object: 'invoice',
  customer: `cus_${subscription}`,
  parent: { subscription_details: { subscription, metadata: {} } },
  lines: { data: [{ pricing: { price_details: { price } }, period: { end: periodEnd } }] },
});
const planName = async (token: string) =>
  (await call('GET', '/api/user/plan', { token })).body.name as string;

describe('billing with Stripe configured', () => {
  it('answers the plan change ladder: no token, a bad id, an unknown plan', async () => {
    const u = await newUser();
    expect((await call('PUT', '/api/user/plan', { body: { plan: 'x' } })).status).toBe(401);
    const bad = await call('PUT', '/api/user/plan', { token: u.token, body: { plan: 'nope' } });
    expect(bad.status).toBe(400);
    const unknown = await call('PUT', '/api/user/plan', { token: u.token, body: { plan: 'a'.repeat(24) } });
    expect(unknown).toMatchObject({ status: 404, body: { message: 'Plan not found' } });
    expect(await call('GET', '/api/billing', { token: u.token })).toEqual({
      status: 200,
      body: { enabled: true },
    });
  });

  it('sends an upgrade to Stripe Checkout; the plan changes only on the signed checkout.session.completed, once', async () => {
    const u = await newUser();
    const p = await plans();
    const up = await call('PUT', '/api/user/plan', { token: u.token, body: { plan: p.pro!._id } });
    expect(up.status).toBe(200);
    expect(up.body.checkoutUrl).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    expect(up.body.plan.name).toBe('Free');
    expect(up.body.nextPlan.name).toBe('Pro');
    expect(await planName(u.token)).toBe('Free');

    const event = { id: `evt_checkout_${u.id}` };
    const first = await webhook(
      'checkout.session.completed',
      session(u.id, p.pro!._id, `sub_up_${u.id}`),
      event,
    );
    expect(first).toEqual({ status: 200, body: { received: true, duplicate: false } });
    expect(await planName(u.token)).toBe('Pro');

    // Stripe redelivers: acknowledged, changes nothing twice (one PLAN_CHANGED in the audit).
    const again = await webhook(
      'checkout.session.completed',
      session(u.id, p.pro!._id, `sub_up_${u.id}`),
      event,
    );
    expect(again).toEqual({ status: 200, body: { received: true, duplicate: true } });
    const logs = await eventually(async () => {
      const res = await call('GET', '/api/user/audit-logs?action=PLAN_CHANGED', { token: u.token });
      expect(res.body.logs.length).toBeGreaterThan(0);
      return res.body.logs;
    });
    expect(logs).toHaveLength(1);
  });

  it('refuses a forged signature and a missing one (400) and changes nothing', async () => {
    const u = await newUser();
    const p = await plans();
    const forged = await webhook(
      'checkout.session.completed',
      session(u.id, p.business!._id, `sub_forged_${u.id}`),
      {
        secret: 'whsec_not_the_endpoint_secret',
      },
    );
    expect(forged).toMatchObject({ status: 400, body: { message: 'Webhook signature verification failed' } });
    const unsigned = await call('POST', '/api/billing/webhook', { raw: '{"id":"evt_x"}' });
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.message).toBe('Missing Stripe-Signature header');
    expect(await planName(u.token)).toBe('Free');
  });

  it('renews on invoice.paid, and a cancellation takes effect at the end of the paid period', async () => {
    const u = await newUser();
    const p = await plans();
    const sub = `sub_cancel_${u.id}`;
    await webhook('checkout.session.completed', session(u.id, p.pro!._id, sub));
    expect((await webhook('invoice.paid', invoice(sub, PRICES.pro))).status).toBe(200);
    expect((await call('GET', '/api/billing', { token: u.token })).body.subscription).toMatchObject({
      status: 'active',
      cancelAtPeriodEnd: false,
      currentPeriodEnd: new Date(PERIOD_END * 1000).toISOString(),
    });

    const down = await call('PUT', '/api/user/plan', { token: u.token, body: { plan: p.free!._id } });
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({
      message: 'Your plan changes to Free on Jan 1, 2027, 12:00 AM UTC, when the paid period ends',
      effectiveAt: new Date(PERIOD_END * 1000).toISOString(),
      plan: { name: 'Pro' },
      nextPlan: { name: 'Free' },
    });
    expect(await planName(u.token)).toBe('Pro');
    expect((await call('GET', '/api/billing', { token: u.token })).body.subscription).toMatchObject({
      cancelAtPeriodEnd: true,
      pendingPlanId: p.free!._id,
    });

    await webhook('customer.subscription.deleted', {
      id: sub,
      object: 'subscription',
      status: 'canceled',
      cancellation_details: { reason: 'cancellation_requested' },
    });
    expect(await planName(u.token)).toBe('Free');
    expect(await call('GET', '/api/billing', { token: u.token })).toEqual({
      status: 200,
      body: { enabled: true },
    });
  });

  it("cancels a deleted user's subscription at Stripe at once", async () => {
    const u = await newUser();
    const p = await plans();
    const sub = `sub_deleted_${u.id}`;
    await webhook('checkout.session.completed', session(u.id, p.pro!._id, sub));
    expect(await planName(u.token)).toBe('Pro');
    const mongo = await MongoClient.connect(stack.urls.mongo);
    try {
      const subscriptions = mongo.db('coffer_auth').collection('billing_subscriptions');
      expect(await subscriptions.countDocuments({ subscriptionId: sub })).toBe(1);
      const admin = await call('POST', '/api/auth/login', {
        body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password },
      });
      const del = await call('DELETE', `/api/admin/users/${u.id}`, { token: admin.body.token });
      expect(del.status).toBe(200);
      // The record goes only once Stripe accepted the cancellation (it stays for the retry otherwise).
      expect(await subscriptions.countDocuments({ subscriptionId: sub })).toBe(0);
    } finally {
      await mongo.close();
    }
  });

  it('keeps the plan while renewals fail, then moves the user to Free with a mail and a clamped schedule', async () => {
    const u = await newUser();
    const p = await plans();
    const sub = `sub_failed_${u.id}`;
    await webhook('checkout.session.completed', session(u.id, p.pro!._id, sub));
    const hourly = await call('PUT', '/api/settings', {
      token: u.token,
      body: { frequency: 'hourly', retention: 2160 },
    });
    expect(hourly.status).toBe(200);

    await webhook('invoice.payment_failed', invoice(sub, PRICES.pro));
    expect((await call('GET', '/api/billing', { token: u.token })).body.subscription.status).toBe('past_due');
    expect(await planName(u.token)).toBe('Pro');

    await webhook('customer.subscription.deleted', {
      id: sub,
      object: 'subscription',
      status: 'canceled',
      cancellation_details: { reason: 'payment_failed' },
    });
    expect(await planName(u.token)).toBe('Free');

    const mail = await eventually(async () => {
      const mails = (await (await fetch(`${stack.urls.mailWeb}/email`)).json()) as Array<{
        subject: string;
        text: string;
        to: Array<{ address: string }>;
      }>;
      const found = mails.find((m) => m.to.some((t) => t.address === u.email));
      if (!found) throw new Error('no mail yet');
      return found;
    });
    expect(mail.subject).toBe('Your Coffer Pro plan has ended');
    expect(mail.text).toContain('your account is now on the Free plan');

    // The orchestrator learns of the change (auth.user.plan_changed) and clamps the saved schedule.
    await eventually(async () => {
      const settings = await call('GET', '/api/settings', { token: u.token });
      expect(settings.body).toMatchObject({ frequency: 24, retention: 168 });
    });
  });
});
