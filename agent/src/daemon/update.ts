// The daemon's side of 'Check for Updates': install a newer release (itself, or through the
// service manager when it may not write its own binary), restart into it, and report the outcome,
// which the next process does when an update needed a restart.
import type { Logger } from './log.js';
import {
  canReplace,
  checkForUpdate,
  clearOutcome,
  installRelease,
  readOutcome,
  updatesOff,
  writeOutcome,
  writeRequest,
  type UpdateOutcome,
} from '../update/updater.js';

export interface UpdaterDeps {
  server: string;
  version: string;
  stateDir: string;
  execPath: string;
  /** Running as the single executable (a Node.js script cannot replace itself). */
  singleExecutable: boolean;
  /** A service manager starts the agent again when it exits (COFFER_AGENT_SUPERVISED=1). */
  supervised: boolean;
  log: Logger;
  /** Sends `agent:update` and resolves true once the server recorded it. */
  report: (outcome: UpdateOutcome) => Promise<boolean>;
  /** The host's switch (the config's `updates`), read when the command arrives. */
  updatesAllowed: () => boolean;
  /** Stops the daemon so that the new binary starts. */
  restart: (reason: string) => void;
  fetchImpl?: typeof fetch;
}

export function createUpdater(deps: UpdaterDeps) {
  const { log } = deps;
  let busy = false;

  const announce = async (outcome: UpdateOutcome) => {
    if (outcome.status === 'failed') log.error('the update failed', { error: outcome.error });
    else if (outcome.status === 'current')
      log.info(`coffer-agent ${outcome.fromVersion} is the newest version the server offers`);
    else log.info('updated', { from: outcome.fromVersion, to: outcome.toVersion });
    if (await deps.report(outcome).catch(() => false)) return true;
    log.warn('the server did not record the update outcome; it is reported again after the next connect');
    return false;
  };

  /** Leaves the outcome for the next process, then restarts into the new binary. */
  const restartInto = async (outcome: UpdateOutcome) => {
    await writeOutcome(deps.stateDir, outcome);
    deps.restart(`Agent updating to ${outcome.toVersion}`);
  };

  return {
    async run(): Promise<void> {
      if (busy) return;
      busy = true;
      try {
        const base = { server: deps.server, currentVersion: deps.version, fetchImpl: deps.fetchImpl };
        if (!deps.updatesAllowed()) {
          await announce(updatesOff(deps.version));
          return;
        }
        if (!deps.singleExecutable) {
          await announce({
            status: 'failed',
            fromVersion: deps.version,
            toVersion: deps.version,
            error:
              'this agent runs as a Node.js script (a development build), not as the coffer-agent binary; install the binary from the setup wizard to get updates',
          });
          return;
        }
        if (await canReplace(deps.execPath)) {
          const outcome = await installRelease({ ...base, target: deps.execPath });
          if (outcome.status === 'updated') return restartInto(outcome);
          await announce(outcome);
          return;
        }
        const check = await checkForUpdate(base);
        if (check.status !== 'updated') {
          await announce(check);
          return;
        }
        if (!deps.supervised) {
          await announce({
            status: 'failed',
            fromVersion: deps.version,
            toVersion: deps.version,
            error: `cannot replace ${deps.execPath}: this user may not write its folder; run \`sudo coffer-agent update\` or the installer again`,
          });
          return;
        }
        // The service manager's privileged step installs it before the next start.
        await writeRequest(deps.stateDir, deps.version);
        log.info('asking the service manager to install the update', { to: check.toVersion });
        deps.restart(`Agent updating to ${check.toVersion}`);
      } finally {
        busy = false;
      }
    },

    /** Reports an outcome an earlier process left (once the server has it, it is removed). */
    async reportPending(): Promise<void> {
      const outcome = await readOutcome(deps.stateDir);
      if (!outcome) return;
      // The outcome says which version should be running now; a failed swap leaves the old one.
      if (await announce(outcome)) await clearOutcome(deps.stateDir);
    },
  };
}
