import { z } from 'zod';
import { fields, parseInput, unaryHandlers, type Logger } from '@coffer/common';
import type { notification } from '@coffer/proto';
import type { Preferences } from './domain/preferences.js';
import type { TestNotifications } from './domain/test-notification.js';
import type { PreferencesRecord } from './store.js';

const userId = fields.objectId('user');

const toMessage = (p: PreferencesRecord): notification.Preferences => ({
  backupSuccess: p.backupSuccess,
  backupFailure: p.backupFailure,
  agentDisconnection: p.agentDisconnection,
  email: p.email ?? undefined,
});

/** gRPC edge of notification: validate, call the domain, shape the answer. */
export function notificationHandlers(deps: {
  log: Logger;
  preferences: Preferences;
  tests: TestNotifications;
}) {
  const { preferences, tests } = deps;
  return unaryHandlers<notification.NotificationServiceServer>(deps.log, {
    async sendTestNotification(req) {
      const input = parseInput(
        z.object({ userId, email: fields.email, name: z.string().max(200, 'Name is too long') }),
        req,
      );
      await tests.send(input);
      return {};
    },
    async getPreferences(req) {
      return toMessage(await preferences.get(parseInput(z.object({ userId }), req).userId));
    },
    async updatePreferences(req) {
      const input = parseInput(
        z.object({
          userId,
          backupSuccess: z.boolean().optional(),
          backupFailure: z.boolean().optional(),
          agentDisconnection: z.boolean().optional(),
          // '' clears the override: notifications go to the account email again.
          email: z.union([z.literal(''), fields.email.transform((e) => e.toLowerCase())]).optional(),
        }),
        req,
      );
      return toMessage(await preferences.update(input.userId, input));
    },
  });
}
