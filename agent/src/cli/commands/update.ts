import { loadConfig, stateDirFor, updatesAllowed } from '../../config/config.js';
import { useNetworkSettings } from '../../runtime/network.js';
import { AGENT_VERSION, isSingleExecutable } from '../../runtime/build-info.js';
import { applyRequest, checkForUpdate, installRelease } from '../../update/updater.js';
import { parseCommand } from '../args.js';
import { out, UserError, type CliIo } from '../io.js';

export const UPDATE_HELP = `Usage: coffer-agent update [--check]

Asks the Coffer server in the config which agent version it offers and, when it is newer,
checks the release's signature with the release keys built into this agent (SHA256SUMS.minisig),
downloads the binary for this platform, checks it against the signed SHA256SUMS and replaces
this executable with it (run it as the user who may write it, e.g. with sudo). A
running service keeps the old version until it restarts (systemctl restart coffer-agent).
--check only tells whether there is a newer version.

--apply-request is for the service manager (the systemd unit's ExecStartPre): it installs an
update the daemon asked for and leaves the outcome for the daemon to report; it refuses while
updates are turned off on this host (coffer-agent config updates off).`;

export async function updateCommand(args: string[], io: CliIo, configPath: string): Promise<void> {
  const { values } = parseCommand(
    'update',
    args,
    { check: { type: 'boolean' }, 'apply-request': { type: 'boolean' } },
    { min: 0, max: 0 },
  );
  if (values.help) return out(io, UPDATE_HELP);
  const config = await loadConfig(configPath);
  if (!config.server)
    throw new UserError(`update: ${configPath} has no server; run \`coffer-agent init\` first`);
  await useNetworkSettings(io.env, config.caFile);
  const deps = { server: config.server, currentVersion: AGENT_VERSION, target: process.execPath };

  if (values['apply-request']) {
    // Never stops the service from starting: the outcome goes to the daemon, which reports it.
    const outcome = await applyRequest({
      ...deps,
      stateDir: stateDirFor(configPath, config),
      updatesAllowed: updatesAllowed(config),
    });
    if (outcome)
      out(io, `update: ${outcome.status}${outcome.error ? ` (${outcome.error})` : ` ${outcome.toVersion}`}`);
    return;
  }
  if (values.check) {
    const c = await checkForUpdate(deps);
    if (c.status === 'failed') throw new UserError(`update: ${c.error}`);
    out(
      io,
      c.available
        ? `coffer-agent ${c.toVersion} is available (this is ${AGENT_VERSION})`
        : `coffer-agent ${AGENT_VERSION} is the newest version`,
    );
    return;
  }
  if (!isSingleExecutable())
    throw new UserError(
      'update: this is a development build run by Node.js; only the coffer-agent binary updates itself',
    );
  const outcome = await installRelease(deps);
  if (outcome.status === 'failed') throw new UserError(`update: ${outcome.error}`);
  out(
    io,
    outcome.status === 'current'
      ? `coffer-agent ${AGENT_VERSION} is the newest version`
      : `updated ${process.execPath} from ${outcome.fromVersion} to ${outcome.toVersion}; restart the agent service to run it`,
  );
}
