import type { Logger } from '@coffer/common';
import type { AgentSockets } from '../agents/namespace.js';
import type { Clients } from '../clients.js';
import type { GatewayConfig } from '../config.js';
import type { Identity } from '../http/identity.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { BrowserSockets } from '../realtime/sessions.js';
import { RouteTable, type RouteSpec } from '../http/route.js';
import { adminRoutes } from './admin.js';
import { adminSecurityRoutes } from './admin-security.js';
import { agentDataRoutes } from './agent-data.js';
import { agentRoutes } from './agents.js';
import { authRoutes } from './auth.js';
import { backupRoutes } from './backups.js';
import { billingRoutes } from './billing.js';
import { kbRoutes } from './kb.js';
import { settingsRoutes } from './settings.js';
import { siteRoutes } from './site.js';
import { twoFactorRoutes } from './two-factor.js';
import { userRoutes } from './user.js';

export interface ApiRouteDeps {
  clients: Clients;
  config: GatewayConfig;
  identity: Identity;
  rateLimit: RateLimiter;
  log: Logger;
  storageUsed: (userId: string) => Promise<number>;
  sockets: AgentSockets;
  browsers: BrowserSockets;
}

/** Every REST route of the gateway, in the order they are matched (the OpenAPI document lists them all). */
export function apiRoutes(t: RouteTable, deps: ApiRouteDeps): RouteTable {
  const { clients } = deps;
  authRoutes(t, {
    clients,
    config: deps.config,
    rateLimit: deps.rateLimit,
    identity: deps.identity,
    browsers: deps.browsers,
  });
  userRoutes(t, {
    clients,
    storageUsed: deps.storageUsed,
    identity: deps.identity,
    rateLimit: deps.rateLimit,
    config: deps.config,
  });
  twoFactorRoutes(t, {
    clients,
    identity: deps.identity,
    rateLimit: deps.rateLimit,
    config: deps.config,
  });
  billingRoutes(t, { clients });
  settingsRoutes(t, { clients });
  backupRoutes(t, { clients });
  agentRoutes(t, { clients, sockets: deps.sockets });
  agentDataRoutes(t, { clients, log: deps.log });
  adminRoutes(t, { clients, identity: deps.identity, sockets: deps.sockets });
  adminSecurityRoutes(t, { clients, identity: deps.identity });
  kbRoutes(t, { clients, identity: deps.identity });
  siteRoutes(t, { config: deps.config });
  return t;
}

/**
 * The routes' declarations alone, for the OpenAPI document (npm run openapi:gen) and tests:
 * built with stand-in dependencies, so their handlers must never run.
 */
export function routeDeclarations(): RouteSpec[] {
  const unused = { clients: {} } as ApiRouteDeps;
  return apiRoutes(new RouteTable({} as Identity), unused).specs;
}
