import http from 'node:http';
import { connectEventBus, connectRedis, createLogger, onShutdown, startOpsServer } from '@coffer/common';
import { closeClients, serviceClients } from './clients.js';
import { loadGatewayConfig } from './config.js';
import { createApp } from './http/app.js';
import { identity as identityFactory } from './http/identity.js';
import { rateLimiter } from './http/rate-limit.js';
import { RouteTable } from './http/route.js';
import { startFanout } from './realtime/fanout.js';
import { startRealtime } from './realtime/socket.js';
import { adminRoutes } from './routes/admin.js';
import { agentRoutes } from './routes/agents.js';
import { agentDataRoutes } from './routes/agent-data.js';
import { backupRoutes } from './routes/backups.js';
import { startAgentNamespace } from './agents/namespace.js';
import { startCommandRelay } from './agents/commands.js';
import { authRoutes } from './routes/auth.js';
import { settingsRoutes } from './routes/settings.js';
import { userRoutes } from './routes/user.js';

async function main() {
  const config = loadGatewayConfig();
  const log = createLogger('gateway', config.LOG_LEVEL);
  const clients = serviceClients(config);
  const redis = await connectRedis(config.REDIS_URL);
  const bus = await connectEventBus({
    url: config.NATS_URL,
    name: 'gateway',
    log,
    streams: ['BACKUP', 'RESTORE', 'AGENT'],
  });
  const identity = identityFactory({
    jwtSecret: config.JWT_SECRET,
    cacheMs: config.ACCOUNT_STATE_CACHE_MS,
    accountState: (userId) => clients.auth.getAccountState({ userId }),
    resolveApiKey: (apiKey) => clients.auth.resolveApiKey({ apiKey }),
  });

  const routes = new RouteTable(identity);
  authRoutes(routes, { clients, config, rateLimit: rateLimiter(redis, config.RATE_WINDOW_SECONDS) });
  userRoutes(routes, {
    clients,
    storageUsed: async (userId) => (await clients.storage.usage({ userId })).bytesUsed,
  });
  settingsRoutes(routes, { clients });
  backupRoutes(routes, { clients });
  agentRoutes(routes, { clients });
  agentDataRoutes(routes, { clients, log });
  adminRoutes(routes, { clients, identity });

  const app = createApp({
    log,
    routes,
    webDist: config.WEB_DIST,
    downloads: config.AGENT_DOWNLOADS_DIR,
    trustProxy: config.TRUST_PROXY,
  });
  // Agent uploads and downloads stream for as long as a backup takes; Node's default 5-minute
  // request timeout would cut large ones. Slow-header clients are still cut by headersTimeout.
  const server = http.createServer({ requestTimeout: 0, headersTimeout: 60_000 }, app);
  const io = await startRealtime({ server, redis, identity, log });
  const fanout = await startFanout(bus, io);
  const agents = startAgentNamespace({ io, identity, clients, bus, log });
  const commands = await startCommandRelay({ bus, nsp: agents, clients, log });
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));

  const ops = await startOpsServer({
    service: 'gateway',
    port: config.OPS_PORT,
    host: config.OPS_HOST,
    ready: () => redis.isReady && !bus.nc.isClosed(),
  });
  log.info({ port: config.PORT, opsPort: ops.port }, 'gateway ready');

  onShutdown(log, [
    () => commands.stop(),
    () => fanout.stop(),
    () => new Promise((resolve) => io.close(() => resolve(undefined))),
    () => new Promise((resolve) => server.close(() => resolve(undefined))),
    async () => closeClients(clients),
    () => bus.close(),
    () => redis.quit(),
    () => ops.close(),
  ]);
}

main().catch((err: unknown) => {
  createLogger('gateway').fatal({ err }, 'gateway failed to start');
  process.exit(1);
});
