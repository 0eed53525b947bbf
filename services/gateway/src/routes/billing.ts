import type { Request } from 'express';
import { z } from 'zod';
import { clampGfs, describeGfs, gfsOverLimits, type GfsCounts } from '@coffer/contracts';
import { badInput } from '@coffer/common';
import type { Clients } from '../clients.js';
import { binary, type RouteTable } from '../http/route.js';

/** The largest webhook body read: Stripe's events are a few kB. */
export const WEBHOOK_BODY_LIMIT = 512 * 1024;

const FREQUENCY_NAMES: Record<number, string> = { 1: 'hourly', 24: 'daily', 168: 'weekly', 720: 'monthly' };
const frequencyName = (h: number) => FREQUENCY_NAMES[h] ?? `every ${h} hours`;
const daysName = (h: number) => `${Math.round(h / 24)} day${Math.round(h / 24) === 1 ? '' : 's'}`;
const GB = 1024 ** 3;
const sizeName = (bytes: number) =>
  bytes >= GB ? `${Number((bytes / GB).toFixed(2))} GB` : `${Number((bytes / 1024 ** 2).toFixed(1))} MB`;

/**
 * What a (smaller) plan changes for this user, in words the profile shows: databases over the
 * limit become inactive in their order (oldest first), a schedule beyond the plan is clamped,
 * storage over the limit blocks new backups. Nothing is deleted except by the retention rule.
 */
export function planChangeNotes(
  plan: {
    name: string;
    dbLimit: number;
    frequencyLimit: number;
    retentionLimit: number;
    storageLimit: number;
    gfsLimits?: GfsCounts;
  },
  now: {
    /** In the orchestrator's order: oldest first, the order in which databases stay active. */
    databases: ReadonlyArray<{ name: string; enabled: boolean }>;
    frequency: number;
    retention: number;
    /** The GFS counts in force, when GFS retention is chosen. */
    gfs?: GfsCounts;
    storageUsed: number;
  },
): string[] {
  const notes: string[] = [];
  const enabled = now.databases.filter((d) => d.enabled);
  const inactive = enabled.slice(Math.max(0, plan.dbLimit)).map((d) => d.name);
  if (inactive.length) {
    notes.push(
      `${inactive.join(', ')} ${inactive.length === 1 ? 'is' : 'are'} now inactive: the ${plan.name} plan allows ` +
        `${plan.dbLimit} active database${plan.dbLimit === 1 ? '' : 's'}. Their backups are kept.`,
    );
  }
  if (now.frequency < plan.frequencyLimit) {
    const to = [1, 24, 168, 720].find((h) => h >= plan.frequencyLimit) ?? 720;
    notes.push(`Scheduled backups changed from ${frequencyName(now.frequency)} to ${frequencyName(to)}.`);
  }
  if (now.retention > plan.retentionLimit) {
    const to = [...[72, 168, 336, 720, 2160, 4320]].reverse().find((h) => h <= plan.retentionLimit) ?? 72;
    notes.push(
      `Retention changed from ${daysName(now.retention)} to ${daysName(to)}: older backups are removed by the retention rule.`,
    );
  }
  if (now.gfs && plan.gfsLimits && gfsOverLimits(now.gfs, plan.gfsLimits).length) {
    notes.push(
      `GFS retention changed to keep ${describeGfs(clampGfs(now.gfs, plan.gfsLimits))}: backups it no longer keeps are removed by the retention rule.`,
    );
  }
  if (now.storageUsed > plan.storageLimit) {
    notes.push(
      `You use ${sizeName(now.storageUsed)} of the plan's ${sizeName(plan.storageLimit)}: new backups are refused ` +
        'until old ones are removed or expire.',
    );
  }
  return notes;
}

const subscriptionView = z
  .object({
    planId: z.string(),
    status: z.string().describe("the payment provider's status: active, past_due, ..."),
    cancelAtPeriodEnd: z.boolean(),
    currentPeriodEnd: z.string().optional().describe('ISO time the paid period ends'),
    pendingPlanId: z.string().optional().describe('the plan that takes over when the paid period ends'),
  })
  .meta({ id: 'Subscription' });

export const billingStateView = z
  .object({
    enabled: z.boolean().describe('whether paid plans can be bought on this server'),
    subscription: subscriptionView.optional(),
  })
  .meta({ id: 'BillingState' });

/** The raw bytes of the request: the signature is over them, so the body is never parsed first. */
async function rawBody(req: Request): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > WEBHOOK_BODY_LIMIT) throw badInput('Webhook body is too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** /api/billing/*: the caller's subscription and the payment provider's webhook. */
export function billingRoutes(t: RouteTable, deps: { clients: Clients }) {
  const { clients } = deps;

  t.add({
    method: 'get',
    path: '/api/billing',
    operationId: 'getBilling',
    summary: "Whether billing is set up on this server, and the caller's subscription",
    tag: 'user',
    access: 'user',
    response: billingStateView,
    handler: async ({ caller }) => clients.auth.getBilling({ userId: caller.id }),
  });

  t.add({
    method: 'post',
    path: '/api/billing/webhook',
    operationId: 'billingWebhook',
    summary: "Stripe's webhook (signed with the endpoint's secret; a redelivered event changes nothing)",
    tag: 'user',
    access: 'public',
    headers: z.object({
      'stripe-signature': z
        .string({ error: 'Missing Stripe-Signature header' })
        .min(1, 'Missing Stripe-Signature header'),
    }),
    body: binary,
    response: z.object({ received: z.boolean(), duplicate: z.boolean() }),
    errors: {
      NOT_FOUND: 'billing is not set up on this server',
      CONFLICT: 'another delivery of the same event is being handled; Stripe sends it again later',
    },
    handler: async ({ req, headers }) => {
      const payload = await rawBody(req);
      const r = await clients.auth.handleBillingWebhook({ payload, signature: headers['stripe-signature'] });
      return { received: true, duplicate: r.duplicate };
    },
  });
}
