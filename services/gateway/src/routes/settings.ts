import { z } from 'zod';
import { FREQUENCY_HOURS, FREQUENCY_NAMES, isRetentionHours, RETENTION_OPTIONS } from '@coffer/contracts';
import { backupFrequency, fields } from '@coffer/common';
import type { Clients } from '../clients.js';
import type { Caller } from '../http/identity.js';
import { messageBody, type RouteTable } from '../http/route.js';
import { agentView, databaseView, planView, toAgent, toDatabase, toPlan } from '../views.js';

const RETENTION_ERROR = `retention must be one of ${RETENTION_OPTIONS.join(', ')} hours`;

const notificationsView = z
  .object({
    backupSuccess: z.boolean(),
    backupFailure: z.boolean(),
    agentDisconnection: z.boolean(),
  })
  .meta({ id: 'NotificationSettings' });
const settingsView = z
  .object({
    frequency: z.number().describe('hours: 1, 24, 168 or 720'),
    retention: z.number().describe('hours'),
    notifications: notificationsView,
    email: z.string().describe('where notifications go'),
  })
  .meta({ id: 'Settings' });

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
      notifications: {
        backupSuccess: prefs.backupSuccess,
        backupFailure: prefs.backupFailure,
        agentDisconnection: prefs.agentDisconnection,
      },
      email: prefs.email || caller.email,
    };
  };

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
    summary: 'Change backup frequency, retention and notification toggles (bounded by the plan)',
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
    }),
    response: settingsView,
    errors: {
      FORBIDDEN:
        "the frequency or retention is beyond the plan's (code PLAN_FREQUENCY_LIMIT or PLAN_RETENTION_LIMIT)",
    },
    handler: async ({ caller, body }) => {
      if (body.frequency !== undefined || body.retention !== undefined) {
        await clients.orchestrator.updateSettings({
          userId: caller.id,
          frequency: body.frequency && backupFrequency.toProto(FREQUENCY_HOURS[body.frequency]),
          retention: body.retention,
        });
      }
      if (body.notifications || body.email !== undefined) {
        // The account address is the default; saving it unchanged keeps no override.
        const email = body.email === caller.email ? '' : body.email;
        await clients.notification.updatePreferences({ userId: caller.id, ...body.notifications, email });
      }
      return settingsOf(caller);
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
    summary: 'Replace the API key; the old one stops working at once',
    tag: 'settings',
    access: 'user',
    response: messageBody.extend({ apiKey: z.string() }),
    handler: async ({ caller }) => {
      const { apiKey } = await clients.auth.regenerateApiKey({ userId: caller.id });
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
