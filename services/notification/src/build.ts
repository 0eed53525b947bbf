import { notification } from '@coffer/proto';
import {
  connectServiceBus,
  openServiceDatabase,
  startGrpcServer,
  type EventBus,
  type Logger,
  type ServiceContext,
  type StartedService,
} from '@coffer/common';
import type { NotificationConfig } from './config.js';
import { notificationDatabase } from './model.js';
import { outboxStore, preferencesStore, type OutboxStore, type PreferencesStore } from './store.js';
import { notificationStreams, startNotificationConsumers } from './events.js';
import { smtpMailer, type Mailer } from './mail/mailer.js';
import { appLinks } from './mail/templates.js';
import { delivery as deliveryFactory } from './domain/delivery.js';
import { eventHandlers } from './domain/event-handlers.js';
import { preferences as preferencesFactory } from './domain/preferences.js';
import { testNotifications } from './domain/test-notification.js';
import { emailChange } from './domain/email-change.js';
import { securityMails } from './domain/security-mails.js';
import { notificationHandlers } from './handlers.js';
import { authAccountDirectory, type AccountDirectory } from './accounts.js';

// Outbox records only matter while JetStream may redeliver their event (the AUTH stream keeps 7 days).
const OUTBOX_KEEP_MS = 30 * 24 * 3600 * 1000;
const PRUNE_EVERY_MS = 6 * 3600 * 1000;
// Notification settings changes saved while NATS was unreachable are published by this sweep.
const ANNOUNCE_EVERY_MS = 30 * 1000;

/** The notification domain wired from its dependencies; startNotification and the tests share it. */
export function buildNotification(deps: {
  prefsStore: PreferencesStore;
  outbox: OutboxStore;
  events: Pick<EventBus, 'publish'>;
  mailer: Mailer;
  accounts: AccountDirectory;
  publicUrl: string;
  testMailCooldownMs: number;
  log: Logger;
}) {
  const { prefsStore, outbox, mailer, log } = deps;
  const links = appLinks(deps.publicUrl);
  const preferences = preferencesFactory({ store: prefsStore, events: deps.events, log });
  const tests = testNotifications({
    preferences,
    slots: prefsStore,
    mailer,
    links,
    cooldownMs: deps.testMailCooldownMs,
  });
  const emails = emailChange({
    store: prefsStore,
    preferences,
    mailer,
    events: deps.events,
    links,
    // The same flood guard as test mails: both send to an address the user typed.
    cooldownMs: deps.testMailCooldownMs,
    log,
  });
  const delivery = deliveryFactory({ outbox, mailer, log });
  const security = securityMails({ delivery });
  return {
    preferences,
    emails,
    handlers: notificationHandlers({ log, preferences, tests, emails, security }),
    eventHandlers: eventHandlers({
      delivery,
      preferences,
      outbox,
      accounts: deps.accounts,
      links,
      log,
    }),
  };
}

/** Runs `work` now and every `ms`, without keeping the process alive for it. */
function repeat(work: () => Promise<unknown>, ms: number) {
  void work();
  const timer = setInterval(() => void work(), ms);
  timer.unref();
  return async () => clearInterval(timer);
}

/** Connects to Mongo, NATS, SMTP and auth; serves gRPC, consumes events, and sweeps the outbox. */
export async function startNotification(
  config: NotificationConfig,
  { log, identity }: ServiceContext,
): Promise<StartedService> {
  const { conn, models } = await openServiceDatabase(
    config,
    config.NOTIFICATION_DB,
    notificationDatabase,
    log,
  );
  const outbox = outboxStore(models);
  const events = await connectServiceBus(config, 'notification', log, notificationStreams());
  const mailer = smtpMailer({
    host: config.SMTP_HOST,
    port: config.SMTP_PORT,
    secure: config.SMTP_SECURE,
    user: config.SMTP_USER,
    pass: config.SMTP_PASS,
    from: config.MAIL_FROM,
  });
  const accounts = authAccountDirectory(config.AUTH_GRPC, identity);
  const built = buildNotification({
    prefsStore: preferencesStore(models),
    outbox,
    events,
    mailer,
    accounts,
    publicUrl: config.PUBLIC_URL,
    testMailCooldownMs: config.TEST_MAIL_COOLDOWN_SECONDS * 1000,
    log,
  });

  const grpc = await startGrpcServer(
    config.GRPC_LISTEN,
    [{ definition: notification.NotificationServiceService, impl: built.handlers }],
    { identity, log },
  );
  await startNotificationConsumers(events, built.eventHandlers);
  const stopAnnouncing = repeat(
    () =>
      built.preferences
        .announcePending()
        .catch((err: unknown) => log.warn({ err }, 'publishing pending settings changes failed')),
    ANNOUNCE_EVERY_MS,
  );
  const stopPruning = repeat(
    () =>
      outbox
        .prune(new Date(Date.now() - OUTBOX_KEEP_MS))
        .then((n) => n && log.info({ removed: n }, 'pruned old outbox records'))
        .catch((err: unknown) => log.warn({ err }, 'outbox pruning failed')),
    PRUNE_EVERY_MS,
  );

  return {
    ready: () => conn.readyState === 1 && !events.nc.isClosed(),
    info: { grpcPort: grpc.port },
    steps: [
      { name: 'grpc health', stop: async () => grpc.setServing(false) },
      { name: 'grpc', stop: () => grpc.stop() },
      { name: 'outbox pruning', stop: stopPruning },
      { name: 'announcements', stop: stopAnnouncing },
      // Stops the consumers after their in-flight event, then drains NATS, before Mongo closes.
      { name: 'nats', stop: () => events.close() },
      { name: 'smtp', stop: async () => mailer.close() },
      { name: 'auth client', stop: async () => accounts.close() },
      { name: 'mongo', stop: () => conn.close() },
    ],
  };
}
