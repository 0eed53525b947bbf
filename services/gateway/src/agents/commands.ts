import { AGENT_ACCESS_SUBJECTS, commandKind, type EventBus, type Logger } from '@coffer/common';
import { COMMAND_ACK_TIMEOUT_MS, updateNotDeliveredReason } from '@coffer/contracts';
import type { Clients } from '../clients.js';
import type { AgentNews } from '../realtime/agent-news.js';
import type { BrowserSockets } from '../realtime/sessions.js';
import { agentRoom, type AgentNamespace, type AgentSockets } from './namespace.js';

/** How long a command waits for an agent whose registration is recorded but whose socket has not joined its room yet. */
const JUST_CONNECTED_GRACE_MS = 1000;

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
  news: AgentNews;
}) {
  return deps.bus.consume({
    stream: 'AGENT',
    durable: 'gateway-commands',
    subjects: ['agent.command.requested'],
    handler: async ({ data: cmd }) => {
      let delivered = false;
      let answered = false;
      let error: string | undefined;
      const send = () =>
        deps.nsp
          .to(agentRoom(cmd.agentId))
          .timeout(COMMAND_ACK_TIMEOUT_MS)
          .emitWithAck('command', {
            commandId: cmd.commandId,
            kind: cmd.kind,
            jobId: cmd.jobId,
            databaseName: cmd.databaseName,
            ...(cmd.kind === 'restore'
              ? {
                  backupId: cmd.backupId,
                  confirm: cmd.confirm ?? [],
                  // Restore anywhere: only when set, so older agents see the command they know.
                  ...(cmd.sourceLabel ? { sourceLabel: cmd.sourceLabel } : {}),
                  ...(cmd.collections?.length ? { collections: cmd.collections } : {}),
                  ...(cmd.keyFingerprint ? { keyFingerprint: cmd.keyFingerprint } : {}),
                }
              : {}),
            ...(cmd.kind === 'verify' ? { backupId: cmd.backupId, expected: cmd.expected ?? [] } : {}),
          });
      try {
        let answers = await send();
        // An agent is shown active from the moment its registration is recorded, a moment before
        // its socket joins its room: a command sent in between (Check for Updates right after a
        // reconnect; seen in CI) reached nobody. Nobody got it, so sending it once more is safe.
        if (answers.length === 0) {
          await new Promise((r) => setTimeout(r, JUST_CONNECTED_GRACE_MS));
          answers = await send();
        }
        delivered = answers.some((a) => a?.accepted);
        answered = answers.length > 0;
        if (!delivered) {
          // The answer is whatever the agent's code sent: read it defensively.
          const refused = answers[0] as { error?: string } | undefined;
          error =
            answers.length === 0
              ? 'the agent is not connected'
              : (refused?.error ?? 'the agent refused the command');
        }
      } catch {
        error = `the agent did not acknowledge within ${COMMAND_ACK_TIMEOUT_MS / 1000} s`;
      }
      // A reset retires the agent's identity: its sockets go at once, whether or not it answered.
      if (cmd.kind === 'reset') deps.nsp.in(agentRoom(cmd.agentId)).disconnectSockets(true);
      await deps.clients.orchestrator.commandDelivery({
        userId: cmd.userId,
        agentId: cmd.agentId,
        commandId: cmd.commandId,
        kind: commandKind.toProto(cmd.kind),
        jobId: cmd.jobId,
        delivered,
        error,
        refused: !delivered && answered,
      });
      // The orchestrator audits it; the card of whoever clicked Check for Updates says it too.
      if (cmd.kind === 'update' && !delivered)
        deps.news.update(cmd.userId, {
          agentId: cmd.agentId,
          status: 'failed',
          fromVersion: '',
          toVersion: '',
          error: updateNotDeliveredReason(error ?? 'no answer'),
        });
      deps.log.info(
        { commandId: cmd.commandId, kind: cmd.kind, agentId: cmd.agentId, delivered },
        'agent command relayed',
      );
    },
  });
}

/**
 * The owner's access ended or changed: `auth.user.api_key_regenerated` (the old key stops working),
 * `auth.user.ban_changed` to banned, `auth.user.status_changed` to inactive, `auth.user.deleted`,
 * `auth.user.password_changed` (every session issued before it ended). The gateways share one
 * durable consumer; the Redis adapter reaches every gateway's sockets.
 *
 * Agents (their owner's key): every socket goes at once on all but a password change (agents sign
 * in with the API key, which a password change leaves as it is); each is recorded as a disconnect
 * as usual, and the reconnect is refused at the handshake (INVALID_API_KEY for a replaced key or a
 * deleted account, ACCOUNT_SUSPENDED for a ban, ACCOUNT_INACTIVE for an inactive account), which
 * reads the account fresh from auth.
 *
 * Browsers (a session token): on all but a key change, the sockets whose session the account no
 * longer admits are closed (all of them for a ban, an inactivation or a deletion; for a password
 * change, those opened before it, not the one the changing browser reopened with its new token).
 */
export async function startAccessRevocation(deps: {
  bus: EventBus;
  sockets: AgentSockets;
  browsers: BrowserSockets;
  log: Logger;
  /** Drops this gateway's cached account state so the user's next request sees the change. */
  forget?: (userId: string) => void;
  /** Records a replaced key's agents as offline for that reason before their sockets go. */
  orchestrator?: Pick<Clients['orchestrator'], 'systemStatus' | 'agentDisconnected'>;
}) {
  /**
   * The dashboard says 'its API key was replaced' and the mail does not promise that it comes back
   * by itself: the disconnect is recorded with that reason here, before the sockets close (their
   * own disconnect reports then find the agent offline already and are no news).
   */
  const keyReplaced = async (userId: string) => {
    const orchestrator = deps.orchestrator;
    if (!orchestrator) return;
    const { agents } = await orchestrator.systemStatus({ userId });
    for (const a of agents.filter((x) => x.status !== 'offline'))
      await orchestrator.agentDisconnected({ userId, agentId: a.id, reason: 'api-key-replaced' });
  };
  return deps.bus.consume({
    stream: 'AUTH',
    durable: 'gateway-agent-keys',
    subjects: AGENT_ACCESS_SUBJECTS,
    handler: async (event) => {
      const { userId } = event.data;
      if (event.subject === 'auth.user.ban_changed' && !event.data.isBanned) return;
      if (event.subject === 'auth.user.status_changed' && event.data.status !== 'inactive') return;
      deps.forget?.(userId);
      if (event.subject === 'auth.user.api_key_regenerated') await keyReplaced(userId);
      if (event.subject !== 'auth.user.password_changed') deps.sockets.disconnectUser(userId);
      // The deletion is announced before the account goes: its state may still admit the sessions.
      if (event.subject === 'auth.user.deleted') deps.browsers.closeAll(userId);
      else if (event.subject !== 'auth.user.api_key_regenerated') await deps.browsers.closeEnded(userId);
      const why =
        event.subject === 'auth.user.api_key_regenerated'
          ? 'API key replaced'
          : event.subject === 'auth.user.deleted'
            ? 'account deleted'
            : event.subject === 'auth.user.status_changed'
              ? 'account inactive'
              : event.subject === 'auth.user.password_changed'
                ? 'password changed'
                : 'account suspended';
      deps.log.info({ userId, why }, "the user's ended sessions and agents were disconnected");
    },
  });
}
