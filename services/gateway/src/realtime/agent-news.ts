import type { AgentStatusEvent, AgentUpdateEvent } from '@coffer/contracts';
import { userRoom, type RealtimeServer } from './socket.js';

/**
 * What the owner's open dashboards hear about their agents (issue 21, walk 5 and 10), told by the
 * gateway that holds the agent's socket once the orchestrator has recorded the change, so a
 * browser that reads again sees it. Emitted to the owner's room through the Redis adapter, which
 * reaches the owner's browsers on every gateway; a browser that misses one still has its poll.
 */
export interface AgentNews {
  status(userId: string, event: AgentStatusEvent): void;
  update(userId: string, event: AgentUpdateEvent): void;
}

export const agentNews = (io: RealtimeServer): AgentNews => ({
  status: (userId, event) => io.to(userRoom(userId)).emit('agentStatus', event),
  update: (userId, event) => io.to(userRoom(userId)).emit('agentUpdate', event),
});
