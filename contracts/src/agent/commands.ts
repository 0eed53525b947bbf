// Gateway → agent: `command` messages, which the agent acknowledges at once (CommandAck) and then
// works on. Parsed by the agent before anything runs, so a malformed command is refused with a reason.
import { isObjectId } from '../ids.js';

export const COMMAND_KINDS = ['backup', 'restore', 'restart', 'update', 'reset'] as const;
export type CommandKind = (typeof COMMAND_KINDS)[number];
export type JobCommandKind = Extract<CommandKind, 'backup' | 'restore'>;

export interface CommandMessage {
  commandId: string;
  kind: CommandKind;
  /** The backup or restore id, for job commands. */
  jobId?: string;
  databaseName?: string;
}

export type JobCommand = CommandMessage & { kind: JobCommandKind; jobId: string; databaseName: string };

/** The agent's answer to a command: taken, or refused with a reason the user can act on. */
export type CommandAck = { accepted: true } | { accepted: false; error: string };

/** No acknowledgement within this time fails the job with 'Agent unreachable: …'. */
export const COMMAND_ACK_TIMEOUT_MS = 10_000;

export const isJobCommand = (c: CommandMessage): c is JobCommand =>
  c.kind === 'backup' || c.kind === 'restore';

/** Parses an incoming command; returns the command or the reason to refuse it. */
export function parseCommand(raw: unknown): { command: CommandMessage } | { error: string } {
  if (!raw || typeof raw !== 'object') return { error: 'Invalid command' };
  const c = raw as Record<string, unknown>;
  const kind = c.kind;
  if (typeof kind !== 'string' || !(COMMAND_KINDS as readonly string[]).includes(kind))
    return { error: `Unknown command kind ${JSON.stringify(kind ?? null)}` };
  const commandId = typeof c.commandId === 'string' ? c.commandId : '';
  if (kind === 'backup' || kind === 'restore') {
    if (!isObjectId(c.jobId)) return { error: `Invalid ${kind} command: jobId must be a 24-hex id` };
    if (typeof c.databaseName !== 'string' || !c.databaseName.trim())
      return { error: `Invalid ${kind} command: databaseName is missing` };
    return { command: { commandId, kind, jobId: c.jobId, databaseName: c.databaseName } };
  }
  return { command: { commandId, kind: kind as CommandKind } };
}
