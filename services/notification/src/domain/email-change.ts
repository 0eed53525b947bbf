import crypto from 'node:crypto';
import {
  badInput,
  conflict,
  limitReached,
  unavailable,
  type EventBus,
  type EventMap,
  type Logger,
} from '@coffer/common';
import { templates, type AppLinks } from '../mail/templates.js';
import { MailDeliveryError, type Mailer } from '../mail/mailer.js';
import type { PendingEmail, PreferencesStore } from '../store.js';
import type { Preferences } from './preferences.js';

/** How long a confirmation link works. */
export const CONFIRM_TTL_MS = 24 * 60 * 60 * 1000;
export const CONFIRM_TTL_HOURS = CONFIRM_TTL_MS / 3_600_000;

export const INVALID_CONFIRM_LINK =
  'This confirmation link is not valid: it was already used, or a newer link replaced it.';
export const EXPIRED_CONFIRM_LINK =
  'This confirmation link has expired. Ask for a new one in Settings → Notifications.';
export const NOTHING_PENDING = 'No notification email is waiting for confirmation.';
export const CONFIRM_TOO_SOON =
  'A confirmation email was just sent. Please wait a few seconds before asking for another.';

type EmailSubject = 'settings.notification_email.requested' | 'settings.notification_email.changed';

/** 256 random bits for the link; only their SHA-256 is stored (as auth does with reset tokens). */
const newToken = () => crypto.randomBytes(32).toString('base64url');
export const hashConfirmToken = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

export interface Account {
  userId: string;
  /** The account's sign-in address: notifications go there unless another address was confirmed. */
  accountEmail: string;
  name: string;
}

/**
 * Changing where notifications go. A new address gets a single-use link by mail and receives
 * nothing until it is confirmed: anyone could otherwise point a stranger's mailbox at backup
 * alerts. The account's own address needs no confirmation. The link (the token) exists only in
 * that mail: never in a log line, an event or the database.
 */
export function emailChange(deps: {
  store: Pick<
    PreferencesStore,
    'setPendingEmail' | 'pendingEmail' | 'byEmailToken' | 'confirmPendingEmail' | 'clearPendingEmail'
  >;
  preferences: Pick<Preferences, 'get' | 'update'>;
  mailer: Pick<Mailer, 'send'>;
  events: Pick<EventBus, 'publish'>;
  links: AppLinks;
  /** Minimum time between two confirmation mails of one user (protects mailboxes from floods). */
  cooldownMs: number;
  log: Pick<Logger, 'info' | 'warn'>;
  now?: () => Date;
}) {
  const { store, events, log } = deps;
  const now = deps.now ?? (() => new Date());

  /** Audit events are best effort here: the change itself is saved, and the user has their answer. */
  async function announce<S extends EmailSubject>(subject: S, data: EventMap[S]) {
    try {
      await events.publish(subject, data);
    } catch (err) {
      log.warn({ err, subject }, 'notification email change not published');
    }
  }

  /** Mails a fresh link for `email` and keeps it as the pending address. */
  async function sendLink(account: Account, email: string): Promise<void> {
    const token = newToken();
    const t = now();
    const saved = await store.setPendingEmail(
      account.userId,
      {
        email,
        tokenHash: hashConfirmToken(token),
        expiresAt: new Date(t.getTime() + CONFIRM_TTL_MS),
        sentAt: t,
      },
      new Date(t.getTime() - deps.cooldownMs),
    );
    if (!saved)
      throw limitReached(CONFIRM_TOO_SOON, 'LIMIT_REACHED', {
        retryAfter: Math.ceil(deps.cooldownMs / 1000),
      });
    try {
      await deps.mailer.send(
        email,
        templates.notificationEmailConfirmation({
          name: account.name,
          email,
          confirmUrl: deps.links.confirmNotificationEmail(token),
          validHours: CONFIRM_TTL_HOURS,
        }),
      );
    } catch (err) {
      // A link that never arrived must not leave the settings "waiting" for it.
      await store.clearPendingEmail(account.userId);
      if (err instanceof MailDeliveryError && err.permanent) {
        throw badInput(`The mail server refused to deliver to ${email}. Please check the address.`);
      }
      throw unavailable('The mail server is not reachable right now. Please try again later.');
    }
    log.info({ userId: account.userId }, 'notification email confirmation sent');
  }

  return {
    async pending(userId: string): Promise<PendingEmail | null> {
      return store.pendingEmail(userId);
    },

    /**
     * Sets where notifications go. The current address changes nothing; the account address
     * applies at once (and drops a pending one); any other address waits for confirmation.
     */
    async request(account: Account, requested: string): Promise<void> {
      const email = requested.trim().toLowerCase();
      const prefs = await deps.preferences.get(account.userId);
      const current = prefs.email ?? account.accountEmail.toLowerCase();
      // Saving the form unchanged must not drop a change waiting for confirmation.
      if (email === current) return;
      if (email === account.accountEmail.toLowerCase()) {
        await deps.preferences.update(account.userId, { email: '' });
        await store.clearPendingEmail(account.userId);
        await announce('settings.notification_email.changed', {
          userId: account.userId,
          email: null,
          previous: prefs.email,
        });
        return;
      }
      await sendLink(account, email);
      await announce('settings.notification_email.requested', {
        userId: account.userId,
        email,
        current: prefs.email,
      });
    },

    /** A new link for the pending address; the previous link stops working. */
    async resend(account: Account): Promise<void> {
      const pending = await store.pendingEmail(account.userId);
      if (!pending) throw conflict(NOTHING_PENDING);
      await sendLink(account, pending.email);
    },

    async cancel(userId: string): Promise<void> {
      await store.clearPendingEmail(userId);
    },

    /** Opens the link: the pending address becomes the notification address, once. */
    async confirm(token: string): Promise<{ userId: string; email: string }> {
      const tokenHash = hashConfirmToken(token);
      const claim = await store.byEmailToken(tokenHash);
      if (!claim) throw badInput(INVALID_CONFIRM_LINK);
      const t = now();
      if (claim.expiresAt <= t) throw badInput(EXPIRED_CONFIRM_LINK);
      if (!(await store.confirmPendingEmail({ userId: claim.userId, tokenHash, email: claim.email }, t))) {
        throw badInput(INVALID_CONFIRM_LINK);
      }
      log.info({ userId: claim.userId }, 'notification email confirmed');
      await announce('settings.notification_email.changed', {
        userId: claim.userId,
        email: claim.email,
        previous: claim.current,
      });
      return { userId: claim.userId, email: claim.email };
    },
  };
}
export type EmailChange = ReturnType<typeof emailChange>;
