import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { PipelineError } from './errors.js';
import type { ToolName } from './tools.js';
import { INSTALL_HINT } from './tools.js';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningTool {
  child: ChildProcess;
  stdin: Writable | null;
  stdout: Readable | null;
  stderr: Readable;
  /** Resolves when the process has exited and its stdio closed; rejects if it could not start. */
  exited: Promise<Exit>;
  /** SIGTERM, then SIGKILL after `graceMs` if it is still there. */
  kill(graceMs?: number): void;
}

/** Starts a tool with an argument array — never a shell — and a promise of its exit. */
export function startTool(
  name: ToolName,
  file: string,
  args: string[],
  stdio: { stdin: boolean; stdout: boolean },
): RunningTool {
  const child = spawn(file, args, {
    stdio: [stdio.stdin ? 'pipe' : 'ignore', stdio.stdout ? 'pipe' : 'ignore', 'pipe'],
    shell: false,
    windowsHide: true,
  });
  const exited = new Promise<Exit>((resolve, reject) => {
    child.once('error', (e: NodeJS.ErrnoException) => {
      reject(
        e.code === 'ENOENT'
          ? new PipelineError(
              'TOOL_MISSING',
              `${name} could not be started (${file} not found). ${INSTALL_HINT}`,
            )
          : new PipelineError('TOOL_FAILED', `${name} could not be started: ${e.message}`),
      );
    });
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  exited.catch(() => undefined); // observed by callers; avoid an unhandled rejection meanwhile
  return {
    child,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr!,
    exited,
    kill(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }, graceMs);
      t.unref();
      child.once('close', () => clearTimeout(t));
    },
  };
}

export function describeExit(name: string, exit: Exit): string {
  return exit.signal
    ? `${name} was stopped by signal ${exit.signal}`
    : `${name} exited with code ${exit.code}`;
}
