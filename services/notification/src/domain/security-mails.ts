import type { Delivery } from './delivery.js';
import { templates } from '../mail/templates.js';

/** Reset links are valid for one hour after the request (auth's RESET_TTL). */
const RESET_LINK_TTL_MS = 60 * 60 * 1000;

/**
 * Mails about the account's own security, asked for by auth through a gRPC call rather than an
 * event: the reset link is a secret and must not sit in a persisted stream anyone with NATS access
 * could read. They always go to the address auth names (the account's), whatever the notification
 * settings say, and once per request id (a retried call sends nothing more).
 */
export function securityMails(deps: { delivery: Pick<Delivery, 'sendOnce'>; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return {
    async passwordReset(d: {
      userId: string;
      email: string;
      name: string;
      resetUrl: string;
      requestId: string;
    }) {
      await deps.delivery.sendOnce({
        eventId: `reset:${d.requestId}`,
        userId: d.userId,
        kind: 'passwordReset',
        to: d.email,
        validUntil: new Date(now().getTime() + RESET_LINK_TTL_MS),
        build: () => templates.passwordReset({ name: d.name, resetUrl: d.resetUrl }),
      });
    },

    async accountEmailChanged(d: {
      userId: string;
      previousEmail: string;
      newEmail: string;
      name: string;
      requestId: string;
    }) {
      await deps.delivery.sendOnce({
        eventId: `email-changed:${d.requestId}`,
        userId: d.userId,
        kind: 'accountEmailChanged',
        to: d.previousEmail,
        build: () => templates.accountEmailChanged({ name: d.name, newEmail: d.newEmail }),
      });
    },
  };
}
export type SecurityMails = ReturnType<typeof securityMails>;
