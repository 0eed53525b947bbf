// Socket.IO typing of the agents' namespace, for the gateway's Namespace and the agent's Socket:
// `Namespace<AgentToGatewayEvents, GatewayToAgentEvents>` / `Socket<GatewayToAgentEvents, AgentToGatewayEvents>`.
import type { CommandAck, CommandMessage } from './commands.js';
import type { RegisteredMessage } from './handshake.js';
import type { AgentEventName, AgentEventPayload, ProgressEventName, ReportAck } from './events.js';

export type AgentToGatewayEvents = {
  [E in AgentEventName]: E extends ProgressEventName
    ? (payload: AgentEventPayload<E>) => void
    : (payload: AgentEventPayload<E>, ack: (answer: ReportAck) => void) => void;
};

export interface GatewayToAgentEvents {
  registered: (message: RegisteredMessage) => void;
  command: (command: CommandMessage, ack: (answer: CommandAck) => void) => void;
}
