import { z } from 'zod';
import { buildInfo } from '@coffer/common';
import type { GatewayConfig } from '../config.js';
import type { RouteTable } from '../http/route.js';

const publicConfigView = z
  .object({
    supportEmail: z.string().describe('where visitors write for support (SUPPORT_EMAIL)'),
    communityChatUrl: z.string().describe('invite link to the community chat (COMMUNITY_CHAT_URL)'),
  })
  .meta({ id: 'PublicConfig' });

const versionView = z
  .object({
    version: z.string().describe('the release this gateway runs (COFFER_VERSION, else the package version)'),
    commit: z.string().describe("the commit it was built from, or 'unknown'"),
  })
  .meta({ id: 'ServerVersion' });

/**
 * /api/config: the deployment's public settings the web app shows (contact page). They are the
 * operator's, not the code's, so they come from the gateway's environment.
 */
export function siteRoutes(t: RouteTable, deps: { config: GatewayConfig }) {
  t.add({
    method: 'get',
    path: '/api/config',
    operationId: 'getPublicConfig',
    summary: "The deployment's public settings: support e-mail and community chat link",
    tag: 'site',
    access: 'public',
    response: publicConfigView,
    // Read at call time: routeDeclarations() builds the table without a config.
    handler: async () => ({
      supportEmail: deps.config.SUPPORT_EMAIL,
      communityChatUrl: deps.config.COMMUNITY_CHAT_URL,
    }),
  });

  t.add({
    method: 'get',
    path: '/api/version',
    operationId: 'getServerVersion',
    summary: 'The release and commit this gateway runs (during a rolling update, of the one that answered)',
    tag: 'site',
    access: 'public',
    response: versionView,
    handler: async () => ({ ...buildInfo() }),
  });
}
