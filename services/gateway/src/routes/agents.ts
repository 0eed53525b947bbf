import { z } from 'zod';
import { agentAction, fields } from '@coffer/common';
import type { AgentSockets } from '../agents/namespace.js';
import type { Clients } from '../clients.js';
import { messageBody, type RouteTable } from '../http/route.js';

const ACTION_MESSAGES = {
  restart: 'Restart command sent to agent',
  update: 'Update check command sent to agent',
  // Nothing needs reconfiguring: the agent drops its identity and registers again as a new agent.
  reset:
    'Reset command sent to agent. It registers again as a new agent by itself: at once if it is running, ' +
    'otherwise when it next starts.',
} as const;

/** /api/agents/*: the backup service's health and commands to the caller's agents. */
export function agentRoutes(t: RouteTable, deps: { clients: Clients; sockets: AgentSockets }) {
  const { orchestrator } = deps.clients;

  t.add({
    method: 'get',
    path: '/api/agents/server-status',
    operationId: 'checkServerStatus',
    summary: 'Whether the backup service answers',
    tag: 'agents',
    access: 'user',
    response: z.object({ status: z.literal('ok') }),
    errors: { UNAVAILABLE: 'the backup service does not answer within 5 seconds' },
    handler: async ({ caller }) => {
      await orchestrator.systemStatus({ userId: caller.id }, { timeoutMs: 5000 });
      return { status: 'ok' as const };
    },
  });

  t.add({
    method: 'post',
    path: '/api/agents/manage/:agentId',
    operationId: 'manageAgent',
    summary: 'Send an agent a command: restart, update (check for updates) or reset (new credentials)',
    tag: 'agents',
    access: 'user',
    params: z.object({ agentId: fields.objectId('agent') }),
    body: z.object({
      action: z
        .enum(['restart', 'update', 'reset'], { error: 'action must be restart, update or reset' })
        .meta({ id: 'AgentAction' }),
    }),
    response: messageBody,
    errors: { NOT_FOUND: 'the caller has no agent with this id' },
    handler: async ({ caller, params, body }) => {
      await orchestrator.manageAgent({
        userId: caller.id,
        agentId: params.agentId,
        action: agentAction.toProto(body.action),
      });
      return { message: ACTION_MESSAGES[body.action] };
    },
  });

  t.add({
    method: 'delete',
    path: '/api/agents/:agentId',
    operationId: 'removeAgent',
    summary:
      "Remove one of the caller's agents: its record goes and a connected agent is disconnected; its backups stay",
    tag: 'agents',
    access: 'user',
    params: z.object({ agentId: fields.objectId('agent') }),
    response: messageBody,
    errors: { NOT_FOUND: 'the caller has no agent with this id' },
    handler: async ({ caller, params }) => {
      // The user id narrows the deletion to the caller's agent (another user's answers 404).
      await orchestrator.removeAgent({ userId: caller.id, agentId: params.agentId });
      // A connected agent registers again (as a new agent) on its next connect unless its key is invalid.
      deps.sockets.disconnectAgent(params.agentId);
      return { message: 'Agent removed' };
    },
  });
}
