import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** What a command may touch of the outside world; tests pass their own. */
export interface CliIo {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
}

/** A mistake the user can fix: printed as one line, no stack trace. */
export class UserError extends Error {
  override readonly name = 'UserError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Wrong command line: exit code 2 and a pointer to --help. */
export class UsageError extends UserError {
  /** `command` names the help to point at ("db add" → coffer-agent db add --help). */
  constructor(message: string, command?: string) {
    super(`${message} (see coffer-agent ${command ? `${command} ` : ''}--help)`, 2);
  }
}

export function out(io: CliIo, text = ''): void {
  io.stdout.write(text + '\n');
}

export function note(io: CliIo, text = ''): void {
  io.stderr.write(text + '\n');
}

/** Reads all of stdin as text (bounded: secrets and keys are small). */
export async function readStdin(io: CliIo, limit = 64 * 1024): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    if (text.length > limit) throw new UserError('standard input is too large');
  }
  return text;
}

/** Asks for one line in a terminal (on stderr, so stdout stays the command's output). */
export async function promptLine(io: CliIo, prompt: string): Promise<string> {
  io.stderr.write(prompt);
  const lines = readline.createInterface({ input: io.stdin, terminal: false });
  try {
    for await (const line of lines) return line.trim();
    return '';
  } finally {
    lines.close();
  }
}

// Sizes read as on the dashboard and in mails.
export { formatBytes } from '@coffer/contracts';
