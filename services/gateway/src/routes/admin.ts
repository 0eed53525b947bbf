import { z } from 'zod';
import { accountStatus, fields, role } from '@coffer/common';
import { formatBytes } from '@coffer/contracts';
import type { AgentSockets } from '../agents/namespace.js';
import type { Clients } from '../clients.js';
import { passSession, type Identity } from '../http/identity.js';
import { listPage } from '../http/paging.js';
import { messageBody, type RouteTable } from '../http/route.js';
import { adminUserView, agentStatusView, planView, toAdminUser, toAgentStatus, toPlan } from '../views.js';

const userParam = z.object({ id: fields.objectId('user') });
const NO_USER = 'no user has this id';
const SELF = 'an admin may not ban, delete, deactivate or demote their own account';

const adminAgentView = z
  .object({
    _id: z.string(),
    name: z.string(),
    hostname: z.string(),
    version: z.string(),
    platform: z.string(),
    status: agentStatusView,
    lastSeen: z.string(),
  })
  .meta({ id: 'AdminAgent' });

/** /api/admin/* user management (admins only). */
export function adminRoutes(
  t: RouteTable,
  deps: { clients: Clients; identity: Identity; sockets: AgentSockets },
) {
  const { clients, identity } = deps;
  // Auth and the orchestrator check for themselves who acts.
  const asCaller = (req: { headers: { authorization?: string } }) => passSession(identity, req);

  t.add({
    method: 'get',
    path: '/api/admin/users',
    operationId: 'adminListUsers',
    summary: 'Every user, newest first (or a page: limit, before)',
    tag: 'admin',
    access: 'admin',
    query: listPage('user'),
    response: z.array(adminUserView),
    errors: { NOT_FOUND: 'before names no user (the list is loaded again)' },
    handler: async ({ req, query }) =>
      (await clients.auth.adminListUsers(query, asCaller(req))).users.map(toAdminUser),
  });

  t.add({
    method: 'put',
    path: '/api/admin/users/:id',
    operationId: 'adminUpdateUser',
    summary: "Change one of a user's plan, role, status or e-mail",
    tag: 'admin',
    access: 'admin',
    params: userParam,
    body: z
      .object({
        plan: fields.objectId('plan').optional(),
        role: z.enum(['user', 'admin'], { error: "role must be 'user' or 'admin'" }).optional(),
        status: z.enum(['active', 'inactive'], { error: "status must be 'active' or 'inactive'" }).optional(),
        email: fields.email.optional(),
      })
      .refine(
        (b) => Object.values(b).some((v) => v !== undefined),
        'Send one of plan, role, status or email',
      ),
    response: adminUserView,
    errors: {
      BAD_INPUT: SELF,
      NOT_FOUND: 'no user (or plan) has this id',
      CONFLICT: 'another account has this e-mail',
    },
    handler: async ({ req, params, body }) => {
      const user = await clients.auth.adminUpdateUser(
        {
          userId: params.id,
          ...body,
          role: body.role && role.toProto(body.role),
          status: body.status && accountStatus.toProto(body.status),
        },
        asCaller(req),
      );
      identity.forget(params.id);
      return toAdminUser(user);
    },
  });

  t.add({
    method: 'put',
    path: '/api/admin/users/:id/ban',
    operationId: 'adminSetBan',
    summary: "Ban or unban a user (reason defaults to 'Policy violation')",
    tag: 'admin',
    access: 'admin',
    params: userParam,
    body: z.object({
      isBanned: z.boolean({ error: 'isBanned must be true or false' }),
      banReason: z.string().max(500, 'banReason must be at most 500 characters').nullable().optional(),
    }),
    response: z.object({
      isBanned: z.boolean(),
      banReason: z.string().nullable(),
      bannedAt: z.string().nullable(),
    }),
    errors: { BAD_INPUT: SELF, NOT_FOUND: NO_USER },
    handler: async ({ req, params, body }) => {
      const res = await clients.auth.adminSetBan(
        { userId: params.id, isBanned: body.isBanned, banReason: body.banReason ?? undefined },
        asCaller(req),
      );
      identity.forget(params.id);
      return { isBanned: res.isBanned, banReason: res.banReason ?? null, bannedAt: res.bannedAt ?? null };
    },
  });

  t.add({
    method: 'delete',
    path: '/api/admin/users/:id',
    operationId: 'adminDeleteUser',
    summary: 'Delete a user',
    tag: 'admin',
    access: 'admin',
    params: userParam,
    response: messageBody,
    errors: { BAD_INPUT: SELF, NOT_FOUND: NO_USER },
    handler: async ({ req, params }) => {
      await clients.auth.adminDeleteUser({ userId: params.id }, asCaller(req));
      identity.forget(params.id);
      return { message: 'User deleted' };
    },
  });

  t.add({
    method: 'get',
    path: '/api/admin/stats/backups',
    operationId: 'adminBackupStats',
    summary: 'Number and total size of all stored backups',
    tag: 'admin',
    access: 'admin',
    response: z.object({ totalCount: z.number(), totalSize: z.number(), formattedSize: z.string() }),
    handler: async ({ req }) => {
      const s = await clients.orchestrator.backupStats({}, asCaller(req));
      return { totalCount: s.totalCount, totalSize: s.totalSize, formattedSize: formatBytes(s.totalSize) };
    },
  });

  t.add({
    method: 'get',
    path: '/api/admin/users/:id/agents',
    operationId: 'adminListUserAgents',
    summary: "A user's agents",
    tag: 'admin',
    access: 'admin',
    params: userParam,
    response: z.array(adminAgentView),
    handler: async ({ req, params }) =>
      (await clients.orchestrator.adminListAgents({ userId: params.id }, asCaller(req))).agents.map((a) => ({
        _id: a.id,
        name: a.name,
        hostname: a.hostname || 'unknown',
        version: a.version,
        platform: a.platform,
        status: toAgentStatus(a.status),
        lastSeen: a.lastSeen,
      })),
  });

  t.add({
    method: 'delete',
    path: '/api/admin/agents/:id',
    operationId: 'adminDeleteAgent',
    summary: 'Remove an agent',
    tag: 'admin',
    access: 'admin',
    params: z.object({ id: fields.objectId('agent') }),
    response: messageBody,
    errors: { NOT_FOUND: 'no agent has this id' },
    handler: async ({ req, params }) => {
      await clients.orchestrator.adminDeleteAgent({ agentId: params.id }, asCaller(req));
      deps.sockets.disconnectAgent(params.id);
      return { message: 'Agent removed' };
    },
  });

  t.add({
    method: 'get',
    path: '/api/admin/plans',
    operationId: 'adminListPlans',
    summary: 'The plans catalogue (admin view)',
    tag: 'admin',
    access: 'admin',
    response: z.array(planView),
    handler: async () => (await clients.auth.listPlans({})).plans.map(toPlan),
  });
}
