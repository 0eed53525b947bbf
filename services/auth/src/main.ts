import { auth } from '@coffer/proto';
import {
  connectEventBus,
  connectMongo,
  createLogger,
  onShutdown,
  startGrpcServer,
  startOpsServer,
} from '@coffer/common';
import { loadAuthConfig } from './config.js';
import { authModels } from './model.js';
import { AUTH_STREAMS } from './events.js';
import { accounts as accountsFactory } from './domain/accounts.js';
import { admin as adminFactory } from './domain/admin.js';
import { passwordReset } from './domain/password-reset.js';
import { plans as plansFactory } from './domain/plans.js';
import { apiKeyVault } from './domain/secrets.js';
import { tokenIssuer } from './domain/tokens.js';
import { views as viewsFactory } from './domain/views.js';
import { authHandlers } from './handlers.js';

async function main() {
  const config = loadAuthConfig();
  const log = createLogger('auth', config.LOG_LEVEL);
  const conn = await connectMongo(config.MONGODB_URI, config.AUTH_DB);
  const models = authModels(conn);
  await Promise.all(Object.values(models).map((m) => m.init()));
  const events = await connectEventBus({
    url: config.NATS_URL,
    name: 'auth',
    log,
    streams: [...AUTH_STREAMS],
  });

  const vault = apiKeyVault(config.API_KEY_PEPPER);
  const plans = plansFactory({ models, events });
  const accounts = accountsFactory({
    models,
    plans,
    vault,
    issueToken: tokenIssuer(config.JWT_SECRET, config.JWT_TTL_SECONDS),
    events,
  });
  await plans.seed();
  if (config.COFFER_ADMIN_EMAIL && config.COFFER_ADMIN_PASSWORD) {
    await accounts.ensureAdmin(config.COFFER_ADMIN_EMAIL, config.COFFER_ADMIN_PASSWORD);
  }

  const grpc = await startGrpcServer(config.GRPC_LISTEN, [
    {
      definition: auth.AuthServiceService,
      impl: authHandlers({
        log,
        accounts,
        plans,
        reset: passwordReset({ models, events, publicUrl: config.PUBLIC_URL }),
        admin: adminFactory({ models, accounts, plans, events }),
        views: viewsFactory(vault),
        exposeResetToken: config.DEV_EXPOSE_RESET_TOKEN,
      }),
    },
  ]);
  const ops = await startOpsServer({
    service: 'auth',
    port: config.OPS_PORT,
    host: config.OPS_HOST,
    ready: () => conn.readyState === 1 && !events.nc.isClosed(),
  });
  log.info({ grpcPort: grpc.port, opsPort: ops.port }, 'auth ready');

  onShutdown(log, [
    async () => grpc.setServing(false),
    () => grpc.stop(),
    () => events.close(),
    () => conn.close(),
    () => ops.close(),
  ]);
}

main().catch((err: unknown) => {
  createLogger('auth').fatal({ err }, 'auth failed to start');
  process.exit(1);
});
