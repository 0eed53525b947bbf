// How an agent connects (docs/agent-protocol.md): Socket.IO namespace AGENT_NAMESPACE at
// SOCKET_IO_PATH, with this `auth`. The gateway resolves the key and registers the agent.
import { z } from 'zod';
import { CONFIG_ID_PATTERN, INSTANCE_ID_PATTERN, KEY_FINGERPRINT_PATTERN, LIMITS } from '../limits.js';
import { reportedText, safeText } from '../text.js';
import { databaseLabels, version } from './fields.js';

export const AGENT_NAMESPACE = '/agents';

/**
 * What an agent says about itself. The gateway passes it to the orchestrator whole, and the
 * orchestrator parses it with this same schema (parsing a parsed registration changes nothing): a
 * new field here reaches the orchestrator's domain with no edit to either side's handler, once
 * RegisterAgentRequest (orchestrator.proto) carries it.
 */
export const agentRegistrationSchema = z.object({
  instanceId: z.string().regex(INSTANCE_ID_PATTERN),
  name: safeText(z.string().trim().min(1).max(LIMITS.agentName), 'Agent name'),
  // Shown to admins: what the host reports, stripped of control and text-direction characters.
  hostname: reportedText(z.string().max(LIMITS.hostname)).default(''),
  /**
   * Which configuration file on that host the agent runs from, as a hash: an agent set up again
   * there replaces its old registration, two agents of one host (their own files) are kept apart.
   * Agents older than this field do not send it.
   */
  configId: z.string().regex(CONFIG_ID_PATTERN).default(''),
  platform: reportedText(z.string().max(LIMITS.platform)).default(''),
  version: version.default(''),
  databases: databaseLabels.default([]),
  /**
   * The fingerprint of the agent's master key (never the key): the dashboard shows which agents can
   * restore a backup (the ones holding the key it was made with). Agents older than it send none.
   */
  keyFingerprint: z
    .string()
    .refine((f) => f === '' || KEY_FINGERPRINT_PATTERN.test(f), 'Invalid key fingerprint')
    .default(''),
});

export const agentHandshakeSchema = agentRegistrationSchema.extend({
  apiKey: z.string().min(1).max(LIMITS.apiKey),
});

/** What the agent sends. */
export type AgentHandshake = z.input<typeof agentHandshakeSchema>;
/** What the gateway works with once it is validated. */
export type ValidAgentHandshake = z.output<typeof agentHandshakeSchema>;
/** The handshake without its credential: what the orchestrator registers. */
export type AgentRegistration = z.output<typeof agentRegistrationSchema>;

export const registrationOf = ({
  apiKey: _credential,
  ...registration
}: ValidAgentHandshake): AgentRegistration => registration;

/** The first event after connecting: the agent's id and which of its databases the plan allows. */
export interface RegisteredMessage {
  agentId: string;
  databases: Array<{ name: string; isActive: boolean }>;
}
