import { spawn } from 'node:child_process';
import { loadConfig } from '../../config/config.js';
import { startDaemon } from '../../daemon/daemon.js';
import { parseCommand } from '../args.js';
import { out, UserError, type CliIo } from '../io.js';

export const RUN_HELP = `Usage: coffer-agent run

Runs the backup daemon in the foreground: connects to the Coffer server from the config, reports
the configured databases (names only), and runs the backups and restores the server asks for.
Logs are JSON lines on standard output. Stop it with Ctrl-C or SIGTERM: running jobs are reported
as failed ('Agent stopped'). Run it under systemd (or another supervisor) to keep it running.

Environment: HEARTBEAT_INTERVAL_MS (default 15000), COFFER_DEBUG=1 for debug lines.`;

/** Starts this same program again, detached, with the same arguments (the server's 'restart'). */
function reexec(): void {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    detached: true,
    stdio: 'inherit',
    env: process.env,
  });
  child.unref();
}

export async function runCommand(
  args: string[],
  io: CliIo,
  configPath: string,
  version: string,
): Promise<void> {
  const { values } = parseCommand('run', args, {}, { min: 0, max: 0 });
  if (values.help) return out(io, RUN_HELP);
  const config = await loadConfig(configPath);
  if (!config.server || !config.apiKey)
    throw new UserError(
      `run: ${configPath} has no server or API key; run \`coffer-agent init --server URL --api-key KEY\` first`,
    );
  const daemon = await startDaemon({ configPath, version, out: io.stdout, env: io.env });

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      io.stderr.write(`coffer-agent: ${signal} again, exiting at once\n`);
      process.exit(1);
    }
    void daemon.stop('Agent stopped');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const outcome = await daemon.done;
    if (outcome === 'restart') reexec();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  // Anything still holding the event loop (a keep-alive socket) must not keep a stopped daemon alive.
  setTimeout(() => process.exit(process.exitCode ?? 0), 2000).unref();
}
