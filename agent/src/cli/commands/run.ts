import { spawn } from 'node:child_process';
import { loadConfig } from '../../config/config.js';
import { startDaemon, type DaemonOptions } from '../../daemon/daemon.js';
import { isSingleExecutable } from '../../runtime/build-info.js';
import { useNetworkSettings } from '../../runtime/network.js';
import { preflight } from '../../runtime/preflight.js';
import { parseCommand } from '../args.js';
import { out, UserError, type CliIo } from '../io.js';

export const RUN_HELP = `Usage: coffer-agent run

Runs the backup daemon in the foreground: connects to the Coffer server from the config, reports
the configured databases (names only), and runs the backups and restores the server asks for.
Logs are JSON lines on standard output. Stop it with Ctrl-C or SIGTERM: running jobs are reported
as failed ('Agent stopped'). Run it under systemd (or another supervisor) to keep it running.

Before it connects it checks that mongodump and mongorestore run (from COFFER_TOOLS_DIR when set,
else the ones installed with the agent, else on PATH) and refuses to start, with what to install,
when they do not.

It reaches the server through the proxy HTTPS_PROXY (or HTTP_PROXY) names, except for the hosts
in NO_PROXY, and trusts the certificates in the config's caFile (init --ca-file) besides the system's.

Environment: HEARTBEAT_INTERVAL_MS (default 15000), COFFER_TOOLS_DIR, COFFER_DEBUG=1 for debug
lines, COFFER_AGENT_SUPERVISED=1 when a service manager restarts it (systemd, the Windows
service): a restart or an update then exits with code 75 for it to start the agent again.`;

/** Exit code asking a service manager to start the agent again (EX_TEMPFAIL). */
export const RESTART_EXIT_CODE = 75;

/** Starts this same program again, detached, with the same arguments (the server's 'restart'). */
function reexec(): void {
  // A single executable is its own script: argv[1] is the name it was started by, not a file to run.
  const args = isSingleExecutable() ? process.argv.slice(2) : [...process.execArgv, ...process.argv.slice(1)];
  const child = spawn(process.execPath, args, {
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
  pipeline?: DaemonOptions['pipeline'],
): Promise<number> {
  const { values } = parseCommand('run', args, {}, { min: 0, max: 0 });
  if (values.help) {
    out(io, RUN_HELP);
    return 0;
  }
  const config = await loadConfig(configPath);
  if (!config.server || !config.apiKey)
    throw new UserError(
      `run: ${configPath} has no server or API key; run \`coffer-agent init --server URL\` first`,
    );
  const tools = await preflight(io.env);
  const network = await useNetworkSettings(io.env, config.caFile);
  const daemon = await startDaemon({
    configPath,
    version,
    out: io.stdout,
    env: io.env,
    tools,
    network,
    ...(pipeline ? { pipeline } : {}),
  });

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
  let code = 0;
  try {
    const outcome = await daemon.done;
    if (outcome === 'restart') {
      if (io.env.COFFER_AGENT_SUPERVISED === '1') code = RESTART_EXIT_CODE;
      else reexec();
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  // Anything still holding the event loop (a keep-alive socket) must not keep a stopped daemon alive.
  setTimeout(() => process.exit(process.exitCode ?? code), 2000).unref();
  return code;
}
