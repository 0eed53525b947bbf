import { z } from 'zod';
import { fields, parseInput, unaryHandlers, type Logger } from '@coffer/common';
import type { notification } from '@coffer/proto';
import type { Preferences } from './domain/preferences.js';
import { INVALID_CONFIRM_LINK, type EmailChange } from './domain/email-change.js';
import type { TestNotifications } from './domain/test-notification.js';
import type { SecurityMails } from './domain/security-mails.js';
import type { PendingEmail, PreferencesRecord } from './store.js';

const userId = fields.objectId('user');
const account = {
  userId,
  accountEmail: fields.email,
  name: z.string().max(200, 'Name is too long'),
};

const toMessage = (p: PreferencesRecord, pending: PendingEmail | null = null): notification.Preferences => ({
  backupSuccess: p.backupSuccess,
  backupFailure: p.backupFailure,
  agentDisconnection: p.agentDisconnection,
  email: p.email ?? undefined,
  pendingEmail: pending?.email,
  pendingEmailExpiresAt: pending?.expiresAt.toISOString(),
});

/** gRPC edge of notification: validate, call the domain, shape the answer. */
export function notificationHandlers(deps: {
  log: Logger;
  preferences: Preferences;
  tests: TestNotifications;
  emails: EmailChange;
  security: SecurityMails;
}) {
  const { preferences, tests, emails, security } = deps;
  const answer = async (id: string) => toMessage(await preferences.get(id), await emails.pending(id));
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
      return answer(parseInput(z.object({ userId }), req).userId);
    },
    async updatePreferences(req) {
      const input = parseInput(
        z.object({
          userId,
          backupSuccess: z.boolean().optional(),
          backupFailure: z.boolean().optional(),
          agentDisconnection: z.boolean().optional(),
          // '' clears the override: notifications go to the account email again. Any other
          // address must be confirmed first (RequestEmailChange).
          email: z
            .literal('', { error: 'A new notification email must be confirmed: use RequestEmailChange' })
            .optional(),
        }),
        req,
      );
      if (input.email === '') await emails.cancel(input.userId);
      await preferences.update(input.userId, input);
      return answer(input.userId);
    },
    async requestEmailChange(req) {
      const input = parseInput(z.object({ ...account, email: fields.email }), req);
      await emails.request(input, input.email);
      return answer(input.userId);
    },
    async resendEmailConfirmation(req) {
      const input = parseInput(z.object(account), req);
      await emails.resend(input);
      return answer(input.userId);
    },
    async cancelEmailChange(req) {
      const input = parseInput(z.object({ userId }), req);
      await emails.cancel(input.userId);
      return answer(input.userId);
    },
    async confirmEmailChange(req) {
      const { token } = parseInput(
        z.object({
          token: z
            .string({ error: INVALID_CONFIRM_LINK })
            .regex(/^[A-Za-z0-9_-]{20,100}$/, INVALID_CONFIRM_LINK),
        }),
        req,
      );
      return emails.confirm(token);
    },
    async sendPasswordReset(req) {
      const input = parseInput(
        z.object({
          userId,
          email: fields.email,
          name: z.string().max(200, 'Name is too long'),
          resetUrl: z.url({ error: 'Invalid reset link' }).max(2000, 'Invalid reset link'),
          requestId: z.string().min(8, 'Invalid request id').max(100, 'Invalid request id'),
        }),
        req,
      );
      await security.passwordReset(input);
      return {};
    },
    async sendAccountEmailChanged(req) {
      const input = parseInput(
        z.object({
          userId,
          previousEmail: fields.email,
          newEmail: fields.email,
          name: z.string().max(200, 'Name is too long'),
          requestId: z.string().min(8, 'Invalid request id').max(100, 'Invalid request id'),
        }),
        req,
      );
      await security.accountEmailChanged(input);
      return {};
    },
  });
}
