import { badInput, limitReached, unavailable } from '@coffer/common';
import { templates, type AppLinks } from '../mail/templates.js';
import { MailDeliveryError, type Mailer } from '../mail/mailer.js';
import type { PreferencesStore } from '../store.js';
import type { Preferences } from './preferences.js';

/** Settings → Notifications → Send Test Notification: one real mail to where notifications go. */
export function testNotifications(deps: {
  preferences: Pick<Preferences, 'recipient'>;
  slots: Pick<PreferencesStore, 'takeTestSlot' | 'releaseTestSlot'>;
  mailer: Pick<Mailer, 'send'>;
  links: AppLinks;
  cooldownMs: number;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());
  return {
    async send(user: { userId: string; email: string; name: string }): Promise<{ to: string }> {
      const to = (await deps.preferences.recipient(user.userId, user.email))!;
      const t = now();
      if (!(await deps.slots.takeTestSlot(user.userId, t, new Date(t.getTime() - deps.cooldownMs)))) {
        throw limitReached(
          'A test notification was just sent. Please wait a few seconds before sending another.',
          'LIMIT_REACHED',
          // The gateway's Retry-After: the cooldown is measured from this attempt at the latest.
          { retryAfter: Math.ceil(deps.cooldownMs / 1000) },
        );
      }
      try {
        await deps.mailer.send(to, templates.testNotification({ name: user.name }, deps.links));
        return { to };
      } catch (err) {
        await deps.slots.releaseTestSlot(user.userId, t);
        if (err instanceof MailDeliveryError && err.permanent) {
          throw badInput(`The mail server refused to deliver to ${to}. Please check the notification email.`);
        }
        throw unavailable('The mail server is not reachable right now. Please try again later.');
      }
    },
  };
}
export type TestNotifications = ReturnType<typeof testNotifications>;
