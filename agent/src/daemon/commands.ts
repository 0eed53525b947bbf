// Commands the gateway sends (docs/agent-protocol.md): validated before anything runs, so a
// malformed or unexpected command is refused in the acknowledgement with a reason.

export const COMMAND_KINDS = ['backup', 'restore', 'restart', 'update', 'reset'] as const;
export type CommandKind = (typeof COMMAND_KINDS)[number];

export interface Command {
  commandId: string;
  kind: CommandKind;
  jobId?: string;
  databaseName?: string;
}

export type JobCommand = Command & { kind: 'backup' | 'restore'; jobId: string; databaseName: string };

export type Ack = { accepted: true } | { accepted: false; error: string };

const JOB_ID = /^[0-9a-f]{24}$/i;

/** Parses an incoming command; returns the command or the reason to refuse it. */
export function parseCommand(raw: unknown): { command: Command } | { error: string } {
  if (!raw || typeof raw !== 'object') return { error: 'Invalid command' };
  const c = raw as Record<string, unknown>;
  const kind = c.kind;
  if (typeof kind !== 'string' || !(COMMAND_KINDS as readonly string[]).includes(kind))
    return { error: `Unknown command kind ${JSON.stringify(kind ?? null)}` };
  const commandId = typeof c.commandId === 'string' ? c.commandId : '';
  if (kind === 'backup' || kind === 'restore') {
    if (typeof c.jobId !== 'string' || !JOB_ID.test(c.jobId))
      return { error: `Invalid ${kind} command: jobId must be a 24-hex id` };
    if (typeof c.databaseName !== 'string' || !c.databaseName.trim())
      return { error: `Invalid ${kind} command: databaseName is missing` };
    return { command: { commandId, kind, jobId: c.jobId, databaseName: c.databaseName } };
  }
  return { command: { commandId, kind: kind as CommandKind } };
}

export const isJobCommand = (c: Command): c is JobCommand => c.kind === 'backup' || c.kind === 'restore';
