import { z } from 'zod';
import {
  FREQUENCY_HOURS,
  FREQUENCY_NAMES,
  isRetentionHours,
  RETENTION_MODES,
  RETENTION_OPTIONS,
  VERIFY_MODES,
} from '@coffer/contracts';
import { backupFrequency, fields, retentionMode } from '@coffer/common';
import type { Clients } from '../clients.js';
import type { Caller } from '../http/identity.js';
import { messageBody, type RouteTable } from '../http/route.js';
import {
  agentView,
  backupView,
  databaseView,
  gfsCountsView,
  planView,
  toAgent,
  toBackup,
  toDatabase,
  toPlan,
} from '../views.js';

const RETENTION_ERROR = `retention must be one of ${RETENTION_OPTIONS.join(', ')} hours`;

const notificationsView = z
  .object({
    backupSuccess: z.boolean(),
    backupFailure: z.boolean(),
    agentDisconnection: z.boolean(),
  })
  .meta({ id: 'NotificationSettings' });
const retentionLockView = z
  .object({
    enabled: z.boolean().describe('backups made now cannot be deleted before their retention date'),
    offAt: z
      .string()
      .optional()
      .describe('a requested turn-off takes effect then (ISO 8601); until then the lock stays on'),
    offDelaySeconds: z.number().describe('how long after it is asked for a turn-off takes effect'),
  })
  .meta({ id: 'RetentionLock' });
const retentionModeView = z
  .enum(RETENTION_MODES, { error: 'retentionMode must be days or gfs' })
  .meta({ id: 'RetentionMode' });
const gfsBody = fields.gfsCounts.meta({
  description: 'how many of the last hours, days, weeks, months and years keep their newest backup',
});
const GFS_LIMIT_ERROR = "the GFS counts are beyond the plan's (code PLAN_GFS_LIMIT, with gfsLimits)";
const settingsView = z
  .object({
    frequency: z.number().describe('hours: 1, 24, 168 or 720'),
    retention: z
      .number()
      .describe('hours: "keep N days"; with GFS, how long failed backups stay and the retention lock dates'),
    retentionMode: retentionModeView.describe('days (keep N days, the default) or gfs'),
    gfs: gfsCountsView.optional().describe('the saved GFS counts, once some were saved'),
    notifications: notificationsView,
    email: z.string().describe('where notifications go'),
    pendingEmail: z
      .string()
      .optional()
      .describe('a new notification address waiting for its owner to open the link mailed to it'),
    pendingEmailExpiresAt: z.string().optional().describe('when the link to pendingEmail stops working'),
    retentionLock: retentionLockView,
  })
  .meta({ id: 'Settings' });

const KEEP_REASONS = [
  'hourly',
  'daily',
  'weekly',
  'monthly',
  'yearly',
  'newest',
  'verified',
  'locked',
  'recent-failure',
] as const;
const isKeepReason = (r: string): r is (typeof KEEP_REASONS)[number] =>
  (KEEP_REASONS as readonly string[]).includes(r);
const retentionVerdictView = backupView
  .extend({
    keep: z.boolean(),
    reasons: z
      .array(z.enum(KEEP_REASONS))
      .describe(
        'why it stays: a period keeps it, the newest or the newest verified of its database, the retention lock, a recent failure',
      ),
    rule: z.string().optional().describe('why it would be deleted, as the audit log will say'),
  })
  .meta({ id: 'RetentionVerdict' });

/** /api/settings/*: plans catalogue, backup settings, databases, API key, notifications. */
export function settingsRoutes(t: RouteTable, deps: { clients: Clients }) {
  const { clients } = deps;

  const settingsOf = async (caller: Caller): Promise<z.input<typeof settingsView>> => {
    const [backup, prefs] = await Promise.all([
      clients.orchestrator.getSettings({ userId: caller.id }),
      clients.notification.getPreferences({ userId: caller.id }),
    ]);
    return {
      frequency: backupFrequency.fromAnswer(backup.frequency),
      retention: backup.retention,
      retentionMode: retentionMode.fromAnswer(backup.retentionMode),
      gfs: backup.gfs,
      notifications: {
        backupSuccess: prefs.backupSuccess,
        backupFailure: prefs.backupFailure,
        agentDisconnection: prefs.agentDisconnection,
      },
      email: prefs.email || caller.email,
      pendingEmail: prefs.pendingEmail,
      pendingEmailExpiresAt: prefs.pendingEmailExpiresAt,
      retentionLock: {
        enabled: backup.retentionLock?.enabled ?? false,
        offAt: backup.retentionLock?.offAt,
        offDelaySeconds: backup.retentionLock?.offDelaySeconds ?? 0,
      },
    };
  };
  const account = (caller: Caller) => ({ userId: caller.id, accountEmail: caller.email, name: caller.name });

  t.add({
    method: 'get',
    path: '/api/settings',
    operationId: 'getSettings',
    summary: 'Backup frequency and retention (hours) and notification toggles',
    tag: 'settings',
    access: 'user',
    response: settingsView,
    handler: ({ caller }) => settingsOf(caller),
  });

  t.add({
    method: 'put',
    path: '/api/settings',
    operationId: 'updateSettings',
    summary:
      'Change backup frequency, retention and notification toggles (bounded by the plan); a new notification email is mailed a confirmation link and used once confirmed',
    tag: 'settings',
    access: 'user',
    body: z.object({
      frequency: z
        .enum(FREQUENCY_NAMES, { error: 'frequency must be hourly, daily, weekly or monthly' })
        .meta({ id: 'Frequency' })
        .optional(),
      retention: z.coerce
        .number({ error: RETENTION_ERROR })
        .refine(isRetentionHours, { message: RETENTION_ERROR })
        .meta({ description: `hours: one of ${RETENTION_OPTIONS.join(', ')}` })
        .optional(),
      notifications: z
        .object({
          backupSuccess: z.boolean({ error: 'notifications.backupSuccess must be true or false' }).optional(),
          backupFailure: z.boolean({ error: 'notifications.backupFailure must be true or false' }).optional(),
          agentDisconnection: z
            .boolean({ error: 'notifications.agentDisconnection must be true or false' })
            .optional(),
        })
        .optional(),
      email: z.union([z.literal(''), fields.email]).optional(),
      retentionMode: retentionModeView.optional(),
      gfs: gfsBody.optional(),
    }),
    response: settingsView,
    errors: {
      FORBIDDEN:
        "the frequency, retention or GFS counts are beyond the plan's (code PLAN_FREQUENCY_LIMIT, PLAN_RETENTION_LIMIT or PLAN_GFS_LIMIT)",
      LIMIT_REACHED: 'a confirmation email was sent a few seconds ago',
      UNAVAILABLE: 'the mail server is not reachable, so the confirmation email could not be sent',
    },
    handler: async ({ caller, body }) => {
      const schedule = [body.frequency, body.retention, body.retentionMode, body.gfs];
      if (schedule.some((v) => v !== undefined)) {
        await clients.orchestrator.updateSettings({
          userId: caller.id,
          frequency: body.frequency && backupFrequency.toProto(FREQUENCY_HOURS[body.frequency]),
          retention: body.retention,
          retentionMode: body.retentionMode && retentionMode.toProto(body.retentionMode),
          gfs: body.gfs,
        });
      }
      if (body.notifications) {
        await clients.notification.updatePreferences({ userId: caller.id, ...body.notifications });
      }
      if (body.email === '') {
        await clients.notification.updatePreferences({ userId: caller.id, email: '' });
      } else if (body.email !== undefined) {
        // The account address applies at once; another waits until the link mailed to it is opened.
        await clients.notification.requestEmailChange({ ...account(caller), email: body.email });
      }
      return settingsOf(caller);
    },
  });

  t.add({
    method: 'put',
    path: '/api/settings/retention-lock',
    operationId: 'setRetentionLock',
    summary:
      'Turn the retention lock on (at once; cancels a pending turn-off) or off (takes effect after a delay, announced by mail)',
    tag: 'settings',
    access: 'user',
    body: z.object({ enabled: z.boolean({ error: 'enabled must be true or false' }) }),
    response: settingsView,
    // Turning the lock off is what a thief with the password would do first: ask the second factor.
    stepUp: ({ body }) => !body.enabled,
    handler: async ({ caller, body }) => {
      await clients.orchestrator.setRetentionLock({ userId: caller.id, enabled: body.enabled });
      return settingsOf(caller);
    },
  });

  t.add({
    method: 'post',
    path: '/api/settings/retention/preview',
    operationId: 'previewRetention',
    summary:
      "Which of the caller's current backups a GFS setting would delete (the rule the retention sweep applies), before it is saved",
    tag: 'settings',
    access: 'user',
    body: z.object({ gfs: gfsBody }),
    response: z.object({
      backups: z.array(retentionVerdictView).describe('finished backups, newest first'),
      deleteCount: z.number(),
    }),
    errors: { FORBIDDEN: GFS_LIMIT_ERROR },
    handler: async ({ caller, body }) => {
      const { backups } = await clients.orchestrator.previewRetention({ userId: caller.id, gfs: body.gfs });
      const rows = backups.map((v) => ({
        ...toBackup(v.backup!),
        keep: v.keep,
        reasons: v.reasons.filter(isKeepReason),
        rule: v.rule,
      }));
      return { backups: rows, deleteCount: rows.filter((r) => !r.keep).length };
    },
  });

  t.add({
    method: 'post',
    path: '/api/settings/notification-email/resend',
    operationId: 'resendNotificationEmailConfirmation',
    summary: 'Mail a new confirmation link to the notification email waiting for confirmation',
    tag: 'settings',
    access: 'user',
    response: settingsView,
    errors: {
      CONFLICT: 'no notification email is waiting for confirmation',
      LIMIT_REACHED: 'a confirmation email was sent a few seconds ago',
      UNAVAILABLE: 'the mail server is not reachable',
    },
    handler: async ({ caller }) => {
      await clients.notification.resendEmailConfirmation(account(caller));
      return settingsOf(caller);
    },
  });

  t.add({
    method: 'delete',
    path: '/api/settings/notification-email/pending',
    operationId: 'cancelNotificationEmailChange',
    summary: 'Drop the notification email waiting for confirmation (its link stops working)',
    tag: 'settings',
    access: 'user',
    response: settingsView,
    handler: async ({ caller }) => {
      await clients.notification.cancelEmailChange({ userId: caller.id });
      return settingsOf(caller);
    },
  });

  t.add({
    method: 'post',
    path: '/api/settings/notification-email/confirm',
    operationId: 'confirmNotificationEmail',
    summary: 'Confirm a new notification email with the token from the link mailed to it (single use)',
    tag: 'settings',
    // The link may be opened on any device, signed in or not: the token is the proof.
    access: 'public',
    body: z.object({ token: z.string({ error: 'token is required' }).min(1, 'token is required').max(200) }),
    response: messageBody.extend({ email: z.string() }),
    errors: { BAD_INPUT: 'the link is invalid, already used, replaced by a newer one, or expired' },
    handler: async ({ body }) => {
      const { email } = await clients.notification.confirmEmailChange({ token: body.token });
      return { message: `Notifications will now be sent to ${email}.`, email };
    },
  });

  t.add({
    method: 'get',
    path: '/api/settings/system-status',
    operationId: 'getSystemStatus',
    summary: "The caller's agents and whether the backup service answers",
    tag: 'settings',
    access: 'user',
    response: z.object({ agents: z.array(agentView), backupService: z.boolean() }),
    handler: async ({ caller }) => {
      const s = await clients.orchestrator.systemStatus({ userId: caller.id });
      return { agents: s.agents.map(toAgent), backupService: s.backupService };
    },
  });

  t.add({
    method: 'get',
    path: '/api/settings/databases',
    operationId: 'getDatabases',
    summary: "The caller's databases (names only; the first dbLimit enabled ones are active)",
    tag: 'settings',
    access: 'user',
    response: z.array(databaseView),
    handler: async ({ caller }) =>
      (await clients.orchestrator.listDatabases({ userId: caller.id })).databases.map(toDatabase),
  });

  t.add({
    method: 'put',
    path: '/api/settings/databases/:id',
    operationId: 'updateDatabase',
    summary: 'Enable or disable a database',
    tag: 'settings',
    access: 'user',
    params: z.object({ id: fields.objectId('database') }),
    body: z.object({ isActive: z.boolean({ error: 'isActive must be true or false' }) }),
    response: z.array(databaseView),
    errors: {
      NOT_FOUND: 'the caller has no database with this id',
      LIMIT_REACHED: "enabling it would pass the plan's database limit (code DATABASE_LIMIT_REACHED)",
    },
    handler: async ({ caller, params, body }) =>
      (
        await clients.orchestrator.setDatabaseActive({
          userId: caller.id,
          databaseId: params.id,
          isActive: body.isActive,
        })
      ).databases.map(toDatabase),
  });

  t.add({
    method: 'put',
    path: '/api/settings/databases/:id/verify',
    operationId: 'updateDatabaseVerify',
    summary: 'Verified backups for a database: off, after each backup, or weekly',
    tag: 'settings',
    access: 'user',
    params: z.object({ id: fields.objectId('database') }),
    body: z.object({ verify: z.enum(VERIFY_MODES, { error: 'verify must be off, each or weekly' }) }),
    response: z.array(databaseView),
    errors: { NOT_FOUND: 'the caller has no database with this id' },
    handler: async ({ caller, params, body }) =>
      (
        await clients.orchestrator.setDatabaseVerify({
          userId: caller.id,
          databaseId: params.id,
          verify: body.verify,
        })
      ).databases.map(toDatabase),
  });

  t.add({
    method: 'get',
    path: '/api/settings/plans',
    operationId: 'getPlans',
    summary: 'The plans catalogue',
    tag: 'settings',
    access: 'public',
    response: z.array(planView),
    handler: async () => (await clients.auth.listPlans({})).plans.map(toPlan),
  });

  t.add({
    method: 'post',
    path: '/api/settings/regenerate-api-key',
    operationId: 'regenerateApiKey',
    summary:
      'Replace the API key; the old one stops working at once (needs step-up with two-factor sign-in on)',
    tag: 'settings',
    access: 'user',
    stepUp: true,
    response: messageBody.extend({ apiKey: z.string() }),
    handler: async ({ caller, res }) => {
      const { apiKey } = await clients.auth.regenerateApiKey({ userId: caller.id });
      // The answer carries the new key: no cache may keep it.
      res.setHeader('Cache-Control', 'no-store');
      return {
        apiKey,
        message: "API key has been regenerated. You'll need to update your agents with the new key.",
      };
    },
  });

  t.add({
    method: 'post',
    path: '/api/settings/test-notification',
    operationId: 'sendTestNotification',
    summary: "Send a test e-mail to the caller's notification address",
    tag: 'settings',
    access: 'user',
    response: messageBody,
    errors: {
      BAD_INPUT: 'the mail server refused the notification address',
      LIMIT_REACHED: 'a test notification was sent a few seconds ago',
      UNAVAILABLE: 'the mail server is not reachable',
    },
    handler: async ({ caller }) => {
      await clients.notification.sendTestNotification({
        userId: caller.id,
        email: caller.email,
        name: caller.name,
      });
      return { message: 'Test notification sent successfully. Please check your email.' };
    },
  });
}
