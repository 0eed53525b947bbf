import { z } from 'zod';
import { AUDIT_ACTIONS, backupFrequency, fields, retentionMode } from '@coffer/common';
import { LIST_NEWEST } from '@coffer/contracts';
import type { Clients } from '../clients.js';
import type { GatewayConfig } from '../config.js';
import type { Identity } from '../http/identity.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { rateLimitedBody } from '../http/errors.js';
import { listPage } from '../http/paging.js';
import { messageBody, type RouteTable } from '../http/route.js';
import { planView, profileView, toPlan, toProfile } from '../views.js';
import { planChangeNotes } from './billing.js';

const AUDIT_PAGE_SIZE = LIST_NEWEST.auditLog;

const auditLog = z
  .object({
    id: z.string(),
    timestamp: z.string(),
    action: z.string(),
    entity: z.string(),
    entityId: z.string().optional(),
    actor: z.string(),
    details: z
      .object({
        name: z.string().optional(),
        hostname: z.string().optional(),
        type: z.string().optional(),
        databaseName: z.string().optional(),
        error: z.string().optional(),
        value: z.string().optional(),
        size: z.number().optional().describe('bytes of the backup'),
        durationMs: z.number().optional().describe('how long the backup or restore ran'),
        backupTimestamp: z.string().optional().describe('when the restored or deleted backup was taken'),
        documentsRestored: z.number().optional(),
        documentsFailed: z.number().optional(),
        rule: z.string().optional().describe('the retention rule that chose an automatic deletion'),
      })
      .meta({ id: 'AuditLogDetails' }),
  })
  .meta({ id: 'AuditLog' });

/** /api/user/*: the caller's own profile, plan, password and audit trail. */
export function userRoutes(
  t: RouteTable,
  deps: {
    clients: Clients;
    storageUsed: (userId: string) => Promise<number>;
    identity: Pick<Identity, 'forget'>;
    rateLimit: RateLimiter;
    config: Pick<GatewayConfig, 'RATE_PASSWORD_PER_USER'>;
  },
) {
  const { clients, rateLimit } = deps;
  // A stolen session must not be able to brute-force the current password: every request that
  // checks it counts against the user, wherever it comes from.
  const passwordGuesses = (userId: string) =>
    rateLimit(
      [{ key: `password-check:user:${userId}`, limit: deps.config.RATE_PASSWORD_PER_USER }],
      'Too many password attempts. Please wait a few minutes and try again.',
    );
  const profile = async (userId: string) =>
    toProfile(await clients.auth.getProfile({ userId }), await deps.storageUsed(userId));

  t.add({
    method: 'get',
    path: '/api/user/profile',
    operationId: 'getProfile',
    summary: "The caller's profile",
    tag: 'user',
    access: 'user',
    response: profileView,
    handler: ({ caller, res }) => {
      // The profile carries the API key: no cache may keep it.
      res.setHeader('Cache-Control', 'no-store');
      return profile(caller.id);
    },
  });

  t.add({
    method: 'put',
    path: '/api/user/update',
    operationId: 'updateProfile',
    summary: 'Change name and/or e-mail (a new e-mail needs step-up with two-factor sign-in on)',
    tag: 'user',
    access: 'user',
    // A stolen session that changes the e-mail takes the account (reset mails go there).
    stepUp: ({ body, caller }) =>
      body.email !== undefined && body.email.trim().toLowerCase() !== caller.email,
    body: z
      .object({
        name: fields.name.optional(),
        email: fields.email.optional(),
        currentPassword: z
          .string()
          .max(128)
          .optional()
          .describe('required when the e-mail changes; the previous address is told of the change'),
      })
      .refine((b) => b.name !== undefined || b.email !== undefined, 'Nothing to update: send name or email'),
    response: messageBody.extend({ user: profileView }),
    errors: {
      CONFLICT: 'another account has this e-mail',
      BAD_INPUT: 'the e-mail changes and the current password is missing or wrong',
      LIMIT_REACHED: { when: 'too many current-password attempts for this account', body: rateLimitedBody },
    },
    before: [
      async ({ caller, body }) => {
        if (body.currentPassword) await passwordGuesses(caller.id);
      },
    ],
    handler: async ({ caller, body }) => {
      await clients.auth.updateProfile({ userId: caller.id, ...body });
      deps.identity.forget(caller.id);
      return { message: 'Profile updated successfully', user: await profile(caller.id) };
    },
  });

  t.add({
    method: 'put',
    path: '/api/user/password',
    operationId: 'changePassword',
    summary: 'Change password (the current one is required; step-up too with two-factor sign-in on)',
    tag: 'user',
    access: 'user',
    stepUp: true,
    body: z.object({
      currentPassword: z
        .string({ error: 'Current password is required' })
        .min(1, 'Current password is required')
        .max(128),
      newPassword: fields.password,
    }),
    response: messageBody.extend({
      token: z
        .string()
        .describe("a fresh session token: every other session, this one's old token included, has ended"),
    }),
    errors: {
      BAD_INPUT: 'the current password is wrong',
      LIMIT_REACHED: { when: 'too many current-password attempts for this account', body: rateLimitedBody },
    },
    before: [({ caller }) => passwordGuesses(caller.id)],
    handler: async ({ caller, body, res }) => {
      res.setHeader('Cache-Control', 'no-store');
      const { token } = await clients.auth.changePassword({ userId: caller.id, ...body });
      // This gateway's cached session version is stale now: the fresh token must pass at once.
      deps.identity.forget(caller.id);
      return { message: 'Password updated successfully', token };
    },
  });

  t.add({
    method: 'get',
    path: '/api/user/plan',
    operationId: 'getUserPlan',
    summary: "The caller's plan",
    tag: 'user',
    access: 'user',
    response: planView,
    handler: async ({ caller }) => toPlan(await clients.auth.getUserPlan({ userId: caller.id })),
  });

  t.add({
    method: 'put',
    path: '/api/user/plan',
    operationId: 'updatePlan',
    summary:
      'Choose another plan: a free one at once; a paid one through the payment page (checkoutUrl); ' +
      'a downgrade of a paid subscription when its paid period ends (effectiveAt)',
    tag: 'user',
    access: 'user',
    body: z.object({ plan: fields.objectId('plan') }),
    response: messageBody.extend({
      plan: planView.describe('the plan in force now'),
      changes: z
        .array(z.string())
        .describe('what the new plan changes for the user (databases, schedule, storage)'),
      checkoutUrl: z.string().optional().describe("the payment provider's page; the plan changes once paid"),
      effectiveAt: z.string().optional().describe('ISO time a scheduled change takes effect'),
      nextPlan: planView.optional().describe('the plan that takes over at effectiveAt or once paid'),
    }),
    errors: {
      NOT_FOUND: 'no plan has this id',
      FORBIDDEN:
        'the plan is a paid one and billing is not set up on this server (code BILLING_NOT_CONFIGURED)',
    },
    handler: async ({ caller, body }) => {
      const userId = caller.id;
      // Read before the change: the notes say what the new plan does to what the user has.
      const [dbs, schedule, storageUsed] = await Promise.all([
        clients.orchestrator.listDatabases({ userId }),
        clients.orchestrator.getSettings({ userId }),
        deps.storageUsed(userId),
      ]);
      const r = await clients.auth.requestPlanChange({ userId, planId: body.plan });
      const plan = toPlan(r.plan!);
      const nextPlan = r.nextPlan ? toPlan(r.nextPlan) : undefined;
      const effective = r.changed ? plan : r.checkoutUrl ? undefined : nextPlan;
      // Product §9: dates with hour and minute. The server does not know the reader's time zone: UTC, said.
      const when = r.effectiveAt
        ? new Date(r.effectiveAt).toLocaleString('en-US', {
            month: 'short',
            day: 'numeric',
            year: 'numeric',
            hour: 'numeric',
            minute: '2-digit',
            timeZone: 'UTC',
            timeZoneName: 'short',
          })
        : undefined;
      const changes = effective
        ? planChangeNotes(effective, {
            databases: dbs.databases,
            frequency: backupFrequency.fromAnswer(schedule.frequency),
            retention: schedule.retention,
            gfs: retentionMode.fromAnswer(schedule.retentionMode) === 'gfs' ? schedule.gfs : undefined,
            storageUsed,
          }).map((note) => (when ? `From ${when}: ${note}` : note))
        : [];
      const message = r.checkoutUrl
        ? `Continue on the payment page to start the ${nextPlan?.name ?? ''} plan`
        : when && nextPlan
          ? `Your plan changes to ${nextPlan.name} on ${when}, when the paid period ends`
          : nextPlan
            ? `Your plan changes to ${nextPlan.name} once the payment goes through`
            : r.changed
              ? `Plan updated to ${plan.name}!` // product §4
              : `You are already on the ${plan.name} plan`;
      return {
        message,
        plan,
        changes,
        ...(r.checkoutUrl ? { checkoutUrl: r.checkoutUrl } : {}),
        ...(r.effectiveAt ? { effectiveAt: r.effectiveAt } : {}),
        ...(nextPlan ? { nextPlan } : {}),
      };
    },
  });

  t.add({
    method: 'get',
    path: '/api/user/audit-logs',
    operationId: 'getAuditLogs',
    summary: `The caller's audit trail, newest first, optionally filtered by action (page by page of ${AUDIT_PAGE_SIZE}, or a page: limit, before)`,
    tag: 'user',
    access: 'user',
    query: listPage('audit entry')
      .extend({
        page: z.coerce
          .number({ error: 'page must be a whole number of 1 or more' })
          .int('page must be a whole number of 1 or more')
          .min(1, 'page must be a whole number of 1 or more')
          .max(100_000, 'page is too large')
          .optional()
          .describe('which page of 20, from 1 (when absent); not with before'),
        action: z.enum(['', ...AUDIT_ACTIONS], { error: 'Unknown audit action' }).optional(),
      })
      .refine((q) => q.before === undefined || q.page === undefined, {
        message: 'Send page or before, not both: before already says where the page starts',
        path: ['before'],
      }),
    response: z.object({
      logs: z.array(auditLog),
      pagination: z.object({ total: z.number(), page: z.number(), pages: z.number() }),
    }),
    errors: { NOT_FOUND: 'before names no audit entry of the caller (the log is loaded again)' },
    handler: async ({ caller, query }) => {
      const page = query.page ?? 1;
      const res = await clients.audit.listLogs({
        userId: caller.id,
        page,
        pageSize: query.limit ?? AUDIT_PAGE_SIZE,
        action: query.action || undefined,
        before: query.before,
      });
      return {
        logs: res.logs.map((l) => ({ ...l, details: l.details ?? {} })),
        pagination: res.pagination ?? { total: 0, page, pages: 1 },
      };
    },
  });

  t.add({
    method: 'get',
    path: '/api/user/audit-actions',
    operationId: 'getAuditActions',
    summary: "Action names present in the caller's audit trail",
    tag: 'user',
    access: 'user',
    response: z.array(z.string()),
    handler: async ({ caller }) => (await clients.audit.listActions({ userId: caller.id })).actions,
  });
}
