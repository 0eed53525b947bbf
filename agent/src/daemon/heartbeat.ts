// Heartbeats tell the orchestrator the agent is alive, which jobs it runs (a job it no longer
// runs is failed) and which databases it has; every DEFAULT_HEARTBEAT_MS while registered.
import { REPORT_ACK_TIMEOUT_MS, type AgentEventPayload, type ReportAck } from '@coffer/contracts';
import type { AgentSocket } from './connection.js';
import type { Logger } from './log.js';

export const DEFAULT_HEARTBEAT_MS = 15_000;

export interface Heartbeat {
  /** Sends one now and then every interval (after a registration). */
  start(): void;
  stop(): void;
  /** Sends one now, if connected (the databases changed). */
  send(): void;
}

export function createHeartbeat(deps: {
  socket: AgentSocket;
  intervalMs: number;
  payload: () => AgentEventPayload<'heartbeat'>;
  log: Logger;
}): Heartbeat {
  const { socket, log } = deps;
  let timer: NodeJS.Timeout | undefined;

  const send = () => {
    if (!socket.connected) return;
    socket
      .timeout(REPORT_ACK_TIMEOUT_MS)
      .emitWithAck('heartbeat', deps.payload())
      .then(
        (answer: ReportAck | undefined) => {
          if (answer && answer.ok === false)
            log.warn('the server refused a heartbeat', { error: answer.error });
        },
        () => log.debug('heartbeat not acknowledged'),
      );
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  return {
    start() {
      stop();
      timer = setInterval(send, deps.intervalMs);
      send();
    },
    stop,
    send,
  };
}
