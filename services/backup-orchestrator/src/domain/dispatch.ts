import { randomUUID } from 'node:crypto';
import { AppError, type AgentCommand } from '@coffer/common';
import type { OrchestratorEvents } from '../events.js';
import type { AgentRecord, AgentStore } from '../store/types.js';
import { agentStatus } from './rules.js';

export const noAgentMessage = (databaseName: string) =>
  `No connected agent reports database '${databaseName}'. Check that the agent is running and configured for this database.`;

export const noAgent = (databaseName: string) =>
  new AppError('UNAVAILABLE', noAgentMessage(databaseName), 'AGENT_UNAVAILABLE');

/** Picks the agent for a job and hands it commands (through JetStream to whichever gateway holds its socket). */
export function dispatcher(deps: {
  agents: Pick<AgentStore, 'list'>;
  events: OrchestratorEvents;
  now: () => Date;
  heartbeatTimeoutMs: number;
}) {
  return {
    /** The most recently heard-from active agent of the user that reports the database, if any. */
    async pickAgent(userId: string, databaseName: string): Promise<AgentRecord | null> {
      const now = deps.now();
      const candidates = (await deps.agents.list(userId))
        .filter((a) => agentStatus(a, now, deps.heartbeatTimeoutMs) === 'active')
        .filter((a) => a.databases.includes(databaseName))
        .sort((a, b) => b.lastSeen.getTime() - a.lastSeen.getTime());
      return candidates[0] ?? null;
    },

    /**
     * The user's agent `agentId` when it is active and reports the database; null otherwise (an
     * agent of another user is null too, so the caller answers as for an unknown one).
     */
    async activeAgent(userId: string, agentId: string, databaseName: string): Promise<AgentRecord | null> {
      const agent = (await deps.agents.list(userId)).find((a) => a.id === agentId);
      if (!agent || agentStatus(agent, deps.now(), deps.heartbeatTimeoutMs) !== 'active') return null;
      return agent.databases.includes(databaseName) ? agent : null;
    },

    /** Publishes the command with its id as the message id (a retry is dropped as a duplicate). */
    async send(command: AgentCommand): Promise<void> {
      await deps.events.publish('agent.command.requested', command, { id: command.commandId });
    },

    newCommandId: () => randomUUID(),
  };
}
export type Dispatcher = ReturnType<typeof dispatcher>;
