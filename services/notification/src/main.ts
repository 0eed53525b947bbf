import { notification } from '@coffer/proto';
import {
  connectEventBus,
  connectMongo,
  createLogger,
  onShutdown,
  startGrpcServer,
  startOpsServer,
} from '@coffer/common';
import { loadNotificationConfig } from './config.js';
import { notificationModels } from './model.js';
import { outboxStore, preferencesStore } from './store.js';
import { notificationStreams, startNotificationConsumers } from './events.js';
import { smtpMailer } from './mail/mailer.js';
import { appLinks } from './mail/templates.js';
import { delivery as deliveryFactory } from './domain/delivery.js';
import { eventHandlers } from './domain/event-handlers.js';
import { preferences as preferencesFactory } from './domain/preferences.js';
import { testNotifications } from './domain/test-notification.js';
import { notificationHandlers } from './handlers.js';
import { authAccountDirectory } from './accounts.js';

// Outbox records only matter while JetStream may redeliver their event (the AUTH stream keeps 7 days).
const OUTBOX_KEEP_MS = 30 * 24 * 3600 * 1000;
const PRUNE_EVERY_MS = 6 * 3600 * 1000;
// Notification settings changes saved while NATS was unreachable are published by this sweep.
const ANNOUNCE_EVERY_MS = 30 * 1000;

async function main() {
  const config = loadNotificationConfig();
  const log = createLogger('notification', config.LOG_LEVEL);
  const conn = await connectMongo(config.MONGODB_URI, config.NOTIFICATION_DB);
  const models = notificationModels(conn);
  await Promise.all(Object.values(models).map((m) => m.init()));
  const prefsStore = preferencesStore(models);
  const outbox = outboxStore(models);
  const events = await connectEventBus({
    url: config.NATS_URL,
    name: 'notification',
    log,
    streams: notificationStreams(),
  });
  const mailer = smtpMailer({
    host: config.SMTP_HOST,
    port: config.SMTP_PORT,
    secure: config.SMTP_SECURE,
    user: config.SMTP_USER,
    pass: config.SMTP_PASS,
    from: config.MAIL_FROM,
  });
  const links = appLinks(config.PUBLIC_URL);
  const accounts = authAccountDirectory(config.AUTH_GRPC);

  const preferences = preferencesFactory({ store: prefsStore, events, log });
  const grpc = await startGrpcServer(config.GRPC_LISTEN, [
    {
      definition: notification.NotificationServiceService,
      impl: notificationHandlers({
        log,
        preferences,
        tests: testNotifications({
          preferences,
          slots: prefsStore,
          mailer,
          links,
          cooldownMs: config.TEST_MAIL_COOLDOWN_SECONDS * 1000,
        }),
      }),
    },
  ]);
  await startNotificationConsumers(
    events,
    eventHandlers({
      delivery: deliveryFactory({ outbox, mailer, log }),
      preferences,
      outbox,
      accounts,
      links,
      log,
    }),
  );

  const announce = () =>
    preferences
      .announcePending()
      .catch((err: unknown) => log.warn({ err }, 'publishing pending settings changes failed'));
  void announce();
  const announceTimer = setInterval(() => void announce(), ANNOUNCE_EVERY_MS);
  announceTimer.unref();

  const prune = () =>
    outbox
      .prune(new Date(Date.now() - OUTBOX_KEEP_MS))
      .then((n) => n && log.info({ removed: n }, 'pruned old outbox records'))
      .catch((err: unknown) => log.warn({ err }, 'outbox pruning failed'));
  void prune();
  const pruneTimer = setInterval(() => void prune(), PRUNE_EVERY_MS);
  pruneTimer.unref();

  const ops = await startOpsServer({
    service: 'notification',
    port: config.OPS_PORT,
    host: config.OPS_HOST,
    ready: () => conn.readyState === 1 && !events.nc.isClosed(),
  });
  log.info({ grpcPort: grpc.port, opsPort: ops.port }, 'notification ready');

  onShutdown(log, [
    async () => grpc.setServing(false),
    () => grpc.stop(),
    async () => clearInterval(pruneTimer),
    async () => clearInterval(announceTimer),
    // Stops the consumers after their in-flight event, then drains NATS, before Mongo closes.
    () => events.close(),
    async () => mailer.close(),
    async () => accounts.close(),
    () => conn.close(),
    () => ops.close(),
  ]);
}

main().catch((err: unknown) => {
  createLogger('notification').fatal({ err }, 'notification failed to start');
  process.exit(1);
});
