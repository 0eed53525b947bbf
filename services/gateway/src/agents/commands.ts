import type { EventBus, Logger } from '@coffer/common';
import type { Clients } from '../clients.js';
import { agentRoom, type AgentNamespace } from './namespace.js';

const ACK_TIMEOUT_MS = 10_000;

/**
 * Delivers `agent.command.requested` events: the gateways share one durable consumer, so each
 * command is taken by one of them, which emits it to the agent's room through the Redis adapter
 * (reaching the agent whichever gateway holds its socket) and reports to the orchestrator whether
 * the agent acknowledged it.
 */
export async function startCommandRelay(deps: {
  bus: EventBus;
  nsp: AgentNamespace;
  clients: Clients;
  log: Logger;
}) {
  return deps.bus.consume({
    stream: 'AGENT',
    durable: 'gateway-commands',
    subjects: ['agent.command.requested'],
    handler: async (event) => {
      if (event.subject !== 'agent.command.requested') return;
      const cmd = event.data as import('@coffer/common').AgentCommand;
      let delivered = false;
      let error: string | undefined;
      try {
        const answers = await deps.nsp
          .to(agentRoom(cmd.agentId))
          .timeout(ACK_TIMEOUT_MS)
          .emitWithAck('command', {
            commandId: cmd.commandId,
            kind: cmd.kind,
            jobId: cmd.jobId,
            databaseName: cmd.databaseName,
          });
        const accepted = answers.find((a) => a?.accepted);
        delivered = Boolean(accepted);
        if (!delivered) {
          error =
            answers.length === 0
              ? 'the agent is not connected'
              : (answers[0]?.error ?? 'the agent refused the command');
        }
      } catch {
        error = `the agent did not acknowledge within ${ACK_TIMEOUT_MS / 1000} s`;
      }
      // A reset retires the agent's identity: its sockets go at once, whether or not it answered.
      if (cmd.kind === 'reset') deps.nsp.in(agentRoom(cmd.agentId)).disconnectSockets(true);
      await deps.clients.orchestrator.commandDelivery({
        userId: cmd.userId,
        agentId: cmd.agentId,
        commandId: cmd.commandId,
        kind: cmd.kind,
        jobId: cmd.jobId,
        delivered,
        error,
      });
      deps.log.info(
        { commandId: cmd.commandId, kind: cmd.kind, agentId: cmd.agentId, delivered },
        'agent command relayed',
      );
    },
  });
}
