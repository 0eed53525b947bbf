import http from 'node:http';
import {
  connectServiceBus,
  connectRedis,
  type Logger,
  type RedisClient,
  type ServiceContext,
  type StartedService,
} from '@coffer/common';
import { closeClients, serviceClients, type Clients } from './clients.js';
import type { GatewayConfig } from './config.js';
import { createApp } from './http/app.js';
import { identity as identityFactory } from './http/identity.js';
import { rateLimiter } from './http/rate-limit.js';
import { clientAddress } from './http/client-address.js';
import { handshakeGate } from './agents/handshake-gate.js';
import { guardRequest, serverOptions } from './http/timeouts.js';
import { RouteTable } from './http/route.js';
import { secondFactorAttempts, stepUpGuard } from './http/step-up.js';
import { startFanout } from './realtime/fanout.js';
import { browserSockets } from './realtime/sessions.js';
import { agentNews } from './realtime/agent-news.js';
import { startRealtime, type RealtimeServer } from './realtime/socket.js';
import { apiRoutes } from './routes/index.js';
import {
  agentSockets,
  startAgentNamespace,
  type AgentNamespace,
  type AgentSockets,
} from './agents/namespace.js';
import { startAccessRevocation, startCommandRelay } from './agents/commands.js';

/** The REST side of the gateway (identity, routes, Express app) wired from its dependencies. */
export function buildGateway(deps: {
  config: GatewayConfig;
  clients: Clients;
  redis: RedisClient;
  log: Logger;
  /** Closes agents' sockets (the agents' namespace starts after the app; until then a no-op). */
  sockets?: AgentSockets;
  /** The browsers' Socket.IO server, once it has started (the routes close sockets of ended sessions). */
  io?: () => RealtimeServer | undefined;
}) {
  const { config, clients, log } = deps;
  const identity = identityFactory({
    jwtSecret: config.JWT_SECRET,
    cacheMs: config.ACCOUNT_STATE_CACHE_MS,
    accountState: (userId) => clients.auth.getAccountState({ userId }),
    resolveApiKey: (apiKey) => clients.auth.resolveApiKey({ apiKey }),
  });
  const browsers = browserSockets({ io: deps.io ?? (() => undefined), identity });
  const rateLimit = rateLimiter(deps.redis, config.RATE_WINDOW_SECONDS);
  const requireStepUp = stepUpGuard({
    jwtSecret: config.JWT_SECRET,
    attempts: secondFactorAttempts(rateLimit, config),
    verifyCode: async (userId, code) => {
      await clients.auth.verifySecondFactor({ userId, code });
    },
  });
  const routes = apiRoutes(new RouteTable(identity, requireStepUp), {
    clients,
    config,
    identity,
    rateLimit,
    log,
    sockets: deps.sockets ?? agentSockets(() => undefined),
    browsers,
    storageUsed: async (userId) => (await clients.storage.usage({ userId })).bytesUsed,
  });
  const app = createApp({
    log,
    routes,
    webDist: config.WEB_DIST,
    downloads: config.AGENT_DOWNLOADS_DIR,
    trustProxy: config.TRUST_PROXY,
  });
  return { identity, browsers, routes, app };
}

/** Connects to Redis, NATS and the services; serves HTTP, Socket.IO and the agents' namespace. */
export async function startGateway(
  config: GatewayConfig,
  { log, identity: serviceId }: ServiceContext,
): Promise<StartedService> {
  const clients = serviceClients(config, serviceId);
  const redis = await connectRedis(config.REDIS_URL);
  const bus = await connectServiceBus(config, 'gateway', log, ['AUTH', 'BACKUP', 'RESTORE', 'AGENT']);
  // The routes close agents' sockets; the namespace they live in starts once the server exists.
  const started: { nsp?: AgentNamespace; io?: RealtimeServer } = {};
  const sockets = agentSockets(() => started.nsp);
  const { identity, browsers, app } = buildGateway({
    config,
    clients,
    redis,
    log,
    sockets,
    io: () => started.io,
  });

  // Headers, bodies and idle connections are bounded; agent uploads and downloads, which stream for
  // as long as a backup takes, are bounded by inactivity instead (http/timeouts.ts).
  const timeouts = {
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: config.HTTP_BODY_TIMEOUT_MS,
    keepAliveTimeoutMs: config.HTTP_KEEPALIVE_TIMEOUT_MS,
    agentDataIdleMs: config.AGENT_DATA_IDLE_MS,
  };
  const guard = guardRequest(timeouts);
  const server = http.createServer(serverOptions(timeouts), (req, res) => {
    guard(req, res);
    app(req, res);
  });
  const io = await startRealtime({
    server,
    redis,
    identity,
    log,
    // An agent's connection joins its namespace only once its handshake's turn came and its
    // registration answered; Socket.IO would close it sooner (45 s by default). The setting is the
    // server's, so a browser's connection that never joins a namespace is also kept that long.
    connectTimeoutMs: config.AGENT_HANDSHAKE_WAIT_MS + config.AGENT_HANDSHAKE_TIMEOUT_MS + 5000,
  });
  started.io = io;
  const fanout = await startFanout(bus, io);
  const news = agentNews(io);
  const agents = startAgentNamespace({
    io,
    identity,
    clients,
    bus,
    log,
    gate: handshakeGate({
      rateLimit: rateLimiter(redis, 60),
      limits: {
        concurrentTotal: config.AGENT_HANDSHAKE_CONCURRENCY,
        maxWaiting: config.AGENT_HANDSHAKE_MAX_WAITING,
        concurrentPerKey: config.AGENT_HANDSHAKE_CONCURRENCY_PER_KEY,
        concurrentPerAddress: config.AGENT_HANDSHAKE_CONCURRENCY_PER_ADDRESS,
        perKeyPerMinute: config.AGENT_HANDSHAKES_PER_KEY_PER_MINUTE,
        perAddressPerMinute: config.AGENT_HANDSHAKES_PER_ADDRESS_PER_MINUTE,
      },
    }),
    addressOf: clientAddress(app),
    handshakeWaitMs: config.AGENT_HANDSHAKE_WAIT_MS,
    handshakeTimeoutMs: config.AGENT_HANDSHAKE_TIMEOUT_MS,
    news,
  });
  started.nsp = agents;
  const commands = await startCommandRelay({ bus, nsp: agents, clients, log, news });
  const accessRevocation = await startAccessRevocation({
    bus,
    sockets,
    browsers,
    log,
    forget: identity.forget,
    orchestrator: clients.orchestrator,
  });
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));

  return {
    ready: () => redis.isReady && !bus.nc.isClosed(),
    info: { port: config.PORT },
    steps: [
      { name: 'command relay', stop: () => commands.stop() },
      { name: 'access revocation', stop: () => accessRevocation.stop() },
      { name: 'fanout', stop: () => fanout.stop() },
      { name: 'socket.io', stop: () => new Promise((resolve) => io.close(() => resolve(undefined))) },
      { name: 'http', stop: () => new Promise((resolve) => server.close(() => resolve(undefined))) },
      { name: 'grpc clients', stop: async () => closeClients(clients) },
      { name: 'nats', stop: () => bus.close() },
      { name: 'redis', stop: () => redis.quit() },
    ],
  };
}
