// The daemon's side of 'Check for Updates': install a newer release (itself, or through the
// service manager when it may not write its own binary), restart into it, and report the outcome,
// which the next process does when an update needed a restart. Every outcome waits in the state
// folder until the server has acknowledged it: a report the server did not take (the socket was
// reconnecting, a service restarting) is sent again, so no outcome goes unaudited.
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

export type UpdateReportAnswer = 'recorded' | 'refused' | 'not-recorded';

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
  /**
   * Sends `agent:update`: 'recorded' once the server has it, 'refused' when the server will never
   * take it (e.g. the agent was removed), 'not-recorded' when it may later.
   */
  report: (outcome: UpdateOutcome) => Promise<UpdateReportAnswer>;
  /** The host's switch (the config's `updates`), read when the command arrives. */
  updatesAllowed: () => boolean;
  /** Stops the daemon so that the new binary starts. */
  restart: (reason: string) => void;
  fetchImpl?: typeof fetch;
  /** Pauses between resends of an unacknowledged outcome (REPORT_RESEND unless set). */
  resend?: { firstMs: number; maxMs: number };
}

/** 2 s, 4 s, 8 s … at most a minute apart, for as long as the daemon runs (and again after a restart). */
export const REPORT_RESEND = { firstMs: 2_000, maxMs: 60_000 };

const sameOutcome = (a: UpdateOutcome | undefined, b: UpdateOutcome) =>
  JSON.stringify(a) === JSON.stringify(b);

export function createUpdater(deps: UpdaterDeps) {
  const { log } = deps;
  const resend = deps.resend ?? REPORT_RESEND;
  let busy = false;
  /** The outcome the server has not acknowledged yet (also in the state folder). */
  let pending: UpdateOutcome | undefined;
  let pause = resend.firstMs;
  let timer: NodeJS.Timeout | undefined;
  let sending: Promise<void> | undefined;

  const logOutcome = (outcome: UpdateOutcome) => {
    if (outcome.status === 'failed') log.error('the update failed', { error: outcome.error });
    else if (outcome.status === 'current')
      log.info(`coffer-agent ${outcome.fromVersion} is the newest version the server offers`);
    else log.info('updated', { from: outcome.fromVersion, to: outcome.toVersion });
  };

  /** Sends the pending outcome; on no acknowledgement, again after a growing pause. One at a time. */
  const deliver = (): Promise<void> =>
    (sending ??= (async () => {
      clearTimeout(timer);
      const outcome = pending;
      if (!outcome) return;
      const answer = await deps.report(outcome).catch(() => 'not-recorded' as const);
      if (answer === 'refused')
        log.warn('the server refused the update outcome for good; it is not sent again');
      if (answer !== 'not-recorded') {
        pause = resend.firstMs;
        // A newer outcome may have replaced it meanwhile: that one is still to be sent.
        if (sameOutcome(pending, outcome)) {
          pending = undefined;
          if (sameOutcome(await readOutcome(deps.stateDir), outcome)) await clearOutcome(deps.stateDir);
        }
      } else {
        log.warn('the server did not record the update outcome; it is sent again', {
          inSeconds: Math.round(pause / 1000),
        });
        timer = setTimeout(() => void deliver(), pause);
        timer.unref();
        pause = Math.min(resend.maxMs, pause * 2);
      }
    })().finally(() => (sending = undefined)));

  /** Keeps the outcome (in the state folder too, so a restart still reports it) and reports it. */
  const announce = async (outcome: UpdateOutcome) => {
    logOutcome(outcome);
    pending = outcome;
    pause = resend.firstMs;
    await writeOutcome(deps.stateDir, outcome).catch((e: unknown) =>
      log.warn('could not keep the update outcome in the state folder', { err: e }),
    );
    await deliver();
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

    /**
     * After each (re)connect: reports the outcome not acknowledged yet, this process's or one an
     * earlier process left (once the server has it, it is removed).
     */
    async reportPending(): Promise<void> {
      if (!pending) {
        // The outcome says which version should be running now; a failed swap leaves the old one.
        pending = await readOutcome(deps.stateDir);
        if (pending) logOutcome(pending);
      }
      pause = resend.firstMs;
      await sending;
      await deliver();
    },

    /** Stops resending (the daemon is stopping; the state folder keeps what is not acknowledged). */
    stop(): void {
      clearTimeout(timer);
    },
  };
}
