import type { EventEnvelope, EventSubject, Logger } from '@coffer/common';
import type { AccountContact, AccountDirectory } from '../accounts.js';
import { templates, type AppLinks, type Mail, type MailKind } from '../mail/templates.js';
import type { OutboxStore } from '../store.js';
import type { Delivery } from './delivery.js';
import type { NotificationTopic, Preferences } from './preferences.js';

/**
 * A backup or agent notification more than a day late (the service was down, SMTP unreachable)
 * is noise: newer backups have happened since. It is not sent.
 */
export const NOTIFICATION_TTL_MS = 24 * 60 * 60 * 1000;

type Handler<S extends EventSubject> = (event: EventEnvelope<S>) => Promise<void>;
export type HandlerTable = { [S in EventSubject]?: Handler<S> };

/**
 * What notification does for each event it consumes. Every handler is idempotent: mails go through
 * the outbox (once per event id), deletions are repeatable. A new mail is one more row here, one
 * template, and its subject in events.ts.
 */
export function eventHandlers(deps: {
  delivery: Pick<Delivery, 'sendOnce'>;
  preferences: Pick<Preferences, 'remove' | 'recipient'>;
  outbox: Pick<OutboxStore, 'forgetUser'>;
  accounts: AccountDirectory;
  links: AppLinks;
  log: Pick<Logger, 'info' | 'debug'>;
}) {
  const { delivery, preferences, accounts, links, log } = deps;

  /**
   * A notification the user can turn off: to the override or account address, only when `topic`
   * is on and the account still exists, once per event.
   */
  async function notify(
    event: { id: string; occurredAt: string; data: { userId: string } },
    topic: NotificationTopic,
    kind: MailKind,
    build: (account: AccountContact, at: Date) => Mail,
  ): Promise<void> {
    const { userId } = event.data;
    const ctx = { eventId: event.id, userId, kind };
    const account = await accounts.contact(userId);
    if (!account) {
      log.info(ctx, 'no mail: the account no longer exists');
      return;
    }
    const to = await preferences.recipient(userId, account.email, topic);
    if (!to) {
      log.debug(ctx, 'no mail: the user turned this notification off');
      return;
    }
    const at = new Date(event.occurredAt);
    await delivery.sendOnce({
      eventId: event.id,
      userId,
      kind,
      to,
      validUntil: Number.isNaN(at.getTime()) ? undefined : new Date(at.getTime() + NOTIFICATION_TTL_MS),
      build: () => build(account, at),
    });
  }

  const table: HandlerTable = {
    // The account is gone: forget its settings and its address. Its outbox records stay (without
    // the address) so a replay of its earlier events still sends nothing.
    'auth.user.deleted': async ({ data }) => {
      await preferences.remove(data.userId);
      await deps.outbox.forgetUser(data.userId);
    },

    // About the account, not a backup: not one of the toggles, sent to the notification address.
    'auth.billing.plan_lapsed': async (event) => {
      const { userId } = event.data;
      const account = await accounts.contact(userId);
      if (!account) return;
      const to = (await preferences.recipient(userId, account.email)) ?? account.email;
      await delivery.sendOnce({
        eventId: event.id,
        userId,
        kind: 'planLapsed',
        to,
        build: () =>
          templates.planLapsed(
            {
              name: account.name,
              previousPlanName: event.data.previousPlanName,
              planName: event.data.planName,
            },
            links,
          ),
      });
    },

    // About the account's safety, not a backup: always sent, to the account address (which a
    // stolen login cannot quietly redirect the way it could try with the notification address).
    'settings.retention_lock.updated': async (event) => {
      const { userId, change, effectiveAt } = event.data;
      if (change !== 'disable_requested' || !effectiveAt) return;
      const account = await accounts.contact(userId);
      if (!account) return;
      await delivery.sendOnce({
        eventId: event.id,
        userId,
        kind: 'retentionLockTurnOff',
        to: account.email,
        validUntil: new Date(effectiveAt),
        build: () =>
          templates.retentionLockTurnOff({ name: account.name, effectiveAt: new Date(effectiveAt) }, links),
      });
    },

    'backup.backup.completed': (event) =>
      notify(event, 'backupSuccess', 'backupCompleted', (account, at) =>
        templates.backupCompleted(
          {
            name: account.name,
            databaseName: event.data.databaseName,
            size: event.data.size,
            type: event.data.type,
            at,
          },
          links,
        ),
      ),

    'backup.backup.failed': (event) =>
      notify(event, 'backupFailure', 'backupFailed', (account, at) =>
        templates.backupFailed(
          {
            name: account.name,
            databaseName: event.data.databaseName,
            error: event.data.error,
            type: event.data.type,
            at,
          },
          links,
        ),
      ),

    'backup.verification.failed': (event) =>
      notify(event, 'backupFailure', 'backupVerificationFailed', (account, at) =>
        templates.backupVerificationFailed(
          {
            name: account.name,
            databaseName: event.data.databaseName,
            error: event.data.error,
            backupTimestamp: event.data.backupTimestamp,
            at,
          },
          links,
        ),
      ),

    'agent.agent.disconnected': async (event) => {
      // An agent that said it was going (Restart Agent, a service stop, a reboot) is not an alarm:
      // the user asked for it or its server's owner did. The audit log still records it.
      if (event.data.leaving) {
        log.info(
          { eventId: event.id, leaving: event.data.leaving },
          'no mail: the agent said it was leaving',
        );
        return;
      }
      return notify(event, 'agentDisconnection', 'agentDisconnected', (account, at) =>
        templates.agentDisconnected(
          {
            name: account.name,
            agentName: event.data.name,
            hostname: event.data.hostname,
            at,
            keyReplaced: event.data.reason === 'api-key-replaced',
          },
          links,
        ),
      );
    },
  };

  return {
    subjects: Object.keys(table) as EventSubject[],
    /** Runs the event's handler; events without one are acknowledged and ignored. */
    async handle(event: EventEnvelope): Promise<void> {
      const handler = table[event.subject] as Handler<EventSubject> | undefined;
      if (handler) await handler(event);
    },
  };
}
export type EventHandlers = ReturnType<typeof eventHandlers>;
