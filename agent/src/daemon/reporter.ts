// The socket as the jobs and the updater see it: progress is sent only while connected (a stale
// reading is not worth replaying after a reconnect); reports wait for the server's ReportAck.
import {
  LEAVING_ACK_TIMEOUT_MS,
  REPORT_ACK_TIMEOUT_MS,
  type ReportAck,
  type UpdateOutcome,
} from '@coffer/contracts';
import type { AgentSocket } from './connection.js';
import type { Reporter } from './jobs.js';
import type { UpdateReportAnswer } from './update.js';

/** An answer that is not a ReportAck counts as a refusal. */
const ackOf = (answer: unknown): ReportAck =>
  answer && typeof answer === 'object' ? (answer as ReportAck) : { ok: false, error: 'no answer' };

// Reporter's signatures tie each event to its payload (the contract); TypeScript cannot follow a
// generic event name into Socket.IO's event map, so the socket is seen through these here.
type Emitter = { emit(event: string, payload: unknown): void };
type AckEmitter = { emitWithAck(event: string, payload: unknown): Promise<unknown> };

export function socketReporter(socket: AgentSocket): Reporter {
  return {
    emit(event, payload) {
      if (socket.connected) (socket as unknown as Emitter).emit(event, payload);
    },
    async report(event, payload) {
      const timed = socket.timeout(REPORT_ACK_TIMEOUT_MS) as unknown as AckEmitter;
      return ackOf(await timed.emitWithAck(event, payload));
    },
  };
}

/** Sends `agent:update`; what the server answered (daemon/update.ts resends what it may take later). */
export async function reportUpdate(socket: AgentSocket, outcome: UpdateOutcome): Promise<UpdateReportAnswer> {
  if (!socket.connected) return 'not-recorded';
  const ack = ackOf(await socket.timeout(REPORT_ACK_TIMEOUT_MS).emitWithAck('agent:update', outcome));
  if (ack.ok) return 'recorded';
  return ack.retry === false ? 'refused' : 'not-recorded';
}

/**
 * Sends `agent:leaving` and waits (at most LEAVING_ACK_TIMEOUT_MS) until the server has recorded
 * it. Never throws: what it came to is for the log, since a shutdown goes on regardless.
 */
export async function announceLeaving(
  socket: AgentSocket,
  restarting: boolean,
): Promise<'recorded' | 'not-connected' | { refused: string }> {
  if (!socket.connected) return 'not-connected';
  try {
    const answer = ackOf(
      await socket.timeout(LEAVING_ACK_TIMEOUT_MS).emitWithAck('agent:leaving', { restarting }),
    );
    return answer.ok ? 'recorded' : { refused: answer.error };
  } catch {
    // An older server does not answer this event at all.
    return { refused: `no answer within ${LEAVING_ACK_TIMEOUT_MS / 1000} s` };
  }
}
