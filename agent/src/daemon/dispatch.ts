// Commands from the gateway (docs/agent-protocol.md): each is validated and answered at once
// (the CommandAck the gateway waits up to COMMAND_ACK_TIMEOUT_MS for), then the work starts.
import { isJobCommand, parseCommand, type CommandAck, type JobCommand } from '@coffer/contracts';
import type { Logger } from './log.js';

export interface DispatchDeps {
  log: Logger;
  stopping: () => boolean;
  /** Registered with the server: a job needs the agent id for its upload or download. */
  registered: () => boolean;
  /** Decides on a backup or restore at once, and starts it when accepted. */
  acceptJob: (command: JobCommand) => CommandAck;
  update: () => void;
  restart: () => void;
  reset: () => void;
}

export type CommandListener = (raw: unknown, ack?: (answer: CommandAck) => void) => void;

/** The `command` listener. */
export function commandListener(deps: DispatchDeps): CommandListener {
  const { log } = deps;
  return (raw, ack) => {
    const answer = (a: CommandAck) => {
      if (typeof ack === 'function') ack(a);
    };
    const parsed = parseCommand(raw);
    if ('error' in parsed) {
      log.warn('refused a command', { error: parsed.error });
      answer({ accepted: false, error: parsed.error });
      return;
    }
    const cmd = parsed.command;
    if (deps.stopping()) {
      answer({ accepted: false, error: 'The agent is shutting down' });
      return;
    }
    log.info('command received', {
      commandId: cmd.commandId,
      kind: cmd.kind,
      ...(cmd.jobId ? { jobId: cmd.jobId } : {}),
      ...(cmd.databaseName ? { database: cmd.databaseName } : {}),
    });
    if (isJobCommand(cmd)) {
      const a: CommandAck = deps.registered()
        ? deps.acceptJob(cmd)
        : { accepted: false, error: 'The agent is not registered yet; try again in a moment' };
      if (!a.accepted) log.warn('refused a command', { kind: cmd.kind, jobId: cmd.jobId, error: a.error });
      answer(a);
      return;
    }
    answer({ accepted: true });
    switch (cmd.kind) {
      case 'update':
        log.info('update check requested by the server');
        deps.update();
        break;
      case 'restart':
        log.info('restart requested by the server');
        deps.restart();
        break;
      case 'reset':
        deps.reset();
        break;
    }
  };
}
