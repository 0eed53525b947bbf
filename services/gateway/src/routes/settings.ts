import { z } from 'zod';
import type { Clients } from '../clients.js';
import { messageBody, type RouteTable } from '../http/route.js';
import { planView, toPlan } from '../views.js';

/** /api/settings/* of the account slice: plans catalogue, API key, test notification. */
export function settingsRoutes(t: RouteTable, deps: { clients: Clients }) {
  const { clients } = deps;

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
