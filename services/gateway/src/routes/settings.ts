import { z } from 'zod';
import { fields } from '@coffer/common';
import type { Clients } from '../clients.js';
import type { Caller } from '../http/identity.js';
import { messageBody, type RouteTable } from '../http/route.js';
import { agentView, databaseView, planView, toAgent, toDatabase, toPlan } from '../views.js';

/** Frequencies as the web app sends them, and the hours the API answers with (spec §3, §9). */
export const FREQUENCY_HOURS = { hourly: 1, daily: 24, weekly: 168, monthly: 720 } as const;
export const RETENTION_HOURS = [72, 168, 336, 720, 2160, 4320] as const;

const notificationsView = z.object({
  backupSuccess: z.boolean(),
  backupFailure: z.boolean(),
  agentDisconnection: z.boolean(),
});
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
      frequency: backup.frequency,
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
    summary: 'Backup frequency and retention (hours) and notification toggles',
    tag: 'settings',
    access: 'user',
    response: settingsView,
    handler: ({ caller }) => settingsOf(caller),
  });

  t.add({
    method: 'put',
    path: '/api/settings',
    summary: 'Change backup frequency, retention and notification toggles (bounded by the plan)',
    tag: 'settings',
    access: 'user',
    body: z.object({
      frequency: z
        .enum(['hourly', 'daily', 'weekly', 'monthly'], {
          error: 'frequency must be hourly, daily, weekly or monthly',
        })
        .optional(),
      retention: z.coerce
        .number({ error: 'retention must be one of 72, 168, 336, 720, 2160, 4320 hours' })
        .refine((h) => (RETENTION_HOURS as readonly number[]).includes(h), {
          message: 'retention must be one of 72, 168, 336, 720, 2160, 4320 hours',
        })
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
    handler: async ({ caller, body }) => {
      if (body.frequency !== undefined || body.retention !== undefined) {
        await clients.orchestrator.updateSettings({
          userId: caller.id,
          frequency: body.frequency && FREQUENCY_HOURS[body.frequency],
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
    summary: 'Enable or disable a database',
    tag: 'settings',
    access: 'user',
    params: z.object({ id: fields.objectId('database') }),
    body: z.object({ isActive: z.boolean({ error: 'isActive must be true or false' }) }),
    response: z.array(databaseView),
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
    summary: 'The plans catalogue',
    tag: 'settings',
    access: 'public',
    response: z.array(planView),
    handler: async () => (await clients.auth.listPlans({})).plans.map(toPlan),
  });

  t.add({
    method: 'post',
    path: '/api/settings/regenerate-api-key',
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
    summary: "Send a test e-mail to the caller's notification address",
    tag: 'settings',
    access: 'user',
    response: messageBody,
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
