import { kb } from '@coffer/proto';
import {
  authAdminCheck,
  openServiceDatabase,
  connectServiceBus,
  startGrpcServer,
  type AdminCheck,
  type Logger,
  type ServiceContext,
  type StartedService,
} from '@coffer/common';
import type { KbConfig } from './config.js';
import { kbDatabase } from './model.js';
import { mongoArticleStore } from './store/index.js';
import type { ArticleStore } from './store/types.js';
import { KB_STREAMS, type KbEvents } from './events.js';
import { articles as articlesFactory } from './domain/articles.js';
import { defaultSeedDir, loadSeedArticles, seedArticles } from './domain/seed.js';
import { kbHandlers } from './handlers.js';

/**
 * The kb domain wired from its store, event publisher and the check of who writes (auth's
 * VerifyAdmin); startKb and the tests share it.
 */
export function buildKb(deps: {
  store: ArticleStore;
  events: KbEvents;
  adminCheck: AdminCheck;
  log: Logger;
  now?: () => Date;
}) {
  const articles = articlesFactory(deps);
  return { articles, handlers: kbHandlers({ log: deps.log, articles, adminCheck: deps.adminCheck }) };
}

/**
 * Connects to Mongo, NATS and auth (who writes), seeds the knowledge base on its first start, then
 * serves gRPC.
 */
export async function startKb(config: KbConfig, { log, identity }: ServiceContext): Promise<StartedService> {
  // Read before connecting: a broken seed file stops the start with its name, not half-way.
  const seed = config.KB_SEED ? loadSeedArticles(config.KB_SEED_DIR ?? defaultSeedDir(__dirname)) : [];
  const { conn, models } = await openServiceDatabase(config, config.KB_DB, kbDatabase, log);
  const events = await connectServiceBus(config, 'kb', log, [...KB_STREAMS]);
  const store = mongoArticleStore(models);
  if (config.KB_SEED) await seedArticles({ store, articles: seed, log });
  const admins = authAdminCheck(config.AUTH_GRPC, identity);
  const built = buildKb({ store, events, adminCheck: admins.check, log });

  const grpc = await startGrpcServer(
    config.GRPC_LISTEN,
    [{ definition: kb.KbServiceService, impl: built.handlers }],
    { identity, log },
  );
  return {
    ready: () => conn.readyState === 1 && !events.nc.isClosed(),
    info: { grpcPort: grpc.port },
    steps: [
      { name: 'grpc health', stop: async () => grpc.setServing(false) },
      { name: 'grpc', stop: () => grpc.stop() },
      { name: 'nats', stop: () => events.close() },
      { name: 'grpc clients', stop: async () => admins.close() },
      { name: 'mongo', stop: () => conn.close() },
    ],
  };
}
