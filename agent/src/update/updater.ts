// Self-update (the dashboard's 'Check for Updates', `coffer-agent update`): ask the server which
// agent it offers, check the release's signature with the keys built into this agent (release.ts),
// download the binary for this platform, verify it, and swap it for the running executable
// atomically. The outcome is written to the state folder and reported by the next
// daemon after its restart, so the audit log learns about success and failure alike.
//
// A hardened service cannot write its own binary (systemd ProtectSystem=strict): then the daemon
// leaves a request in its state folder and exits; the unit's privileged ExecStartPre runs
// `coffer-agent update --apply-request`, which performs the same checked download and swap.
import { access, readFile, rename, rm } from 'node:fs/promises';
import { constants } from 'node:fs';
import path from 'node:path';
import type { UpdateOutcome } from '@coffer/contracts';
import { writeFileAtomic } from '../config/files.js';
import { compareVersions, platformKey } from '../runtime/build-info.js';
import { downloadVerified } from './download.js';
import type { PublicKey } from './minisign.js';
import { fetchRelease, UpdateError, verifyRelease, type FetchedRelease } from './release.js';
import { TRUSTED_RELEASE_KEYS } from './trusted-keys.js';

export const RESULT_FILE = 'agent.update-result.json';
export const REQUEST_FILE = 'agent.update-request.json';

/** What `agent:update` reports (the agent protocol's payload). */
export type { UpdateOutcome };

interface Deps {
  server: string;
  currentVersion: string;
  /** The executable to replace (process.execPath). */
  target: string;
  platform?: string;
  fetchImpl?: typeof fetch;
  /** The release keys a release must be signed with (default: the ones built in). */
  trustedKeys?: readonly PublicKey[];
}

/** The host's switch (`coffer-agent config updates off`): the reason every refused update gives. */
const UPDATES_OFF_REASON =
  'updates are turned off on this host (`coffer-agent config updates on` turns them on again)';

/** What an update the host does not allow comes to: the running version stays. */
export const updatesOff = (fromVersion: string): UpdateOutcome => ({
  status: 'failed',
  fromVersion,
  toVersion: fromVersion,
  error: `${UPDATES_OFF_REASON}; this version keeps running`,
});

/** Swaps `fresh` in for `target`. Windows cannot overwrite a running exe but can rename it away. */
export async function replaceExecutable(
  fresh: string,
  target: string,
  platform: NodeJS.Platform = process.platform,
): Promise<void> {
  if (platform !== 'win32') return rename(fresh, target);
  const old = `${target}.old`;
  await rm(old, { force: true }).catch(() => undefined); // still running from the last update: keep it
  await rename(target, old);
  try {
    await rename(fresh, target);
  } catch (e) {
    await rename(old, target);
    throw e;
  }
}

/**
 * Looks for a newer release, which counts only when its signature verifies; 'current' when there
 * is none. Never throws: failures are outcomes.
 */
export async function checkForUpdate(
  deps: Omit<Deps, 'target'>,
): Promise<UpdateOutcome & { available?: boolean }> {
  try {
    const fetched = await fetchRelease(deps.server, deps.fetchImpl);
    const { release } = fetched;
    const newer = compareVersions(release.version, deps.currentVersion) > 0;
    if (newer) await verified(deps, fetched);
    return {
      status: newer ? 'updated' : 'current',
      available: newer,
      fromVersion: deps.currentVersion,
      toVersion: newer ? release.version : deps.currentVersion,
    };
  } catch (e) {
    return failed(deps.currentVersion, e);
  }
}

const failed = (fromVersion: string, e: unknown): UpdateOutcome => ({
  status: 'failed',
  fromVersion,
  toVersion: fromVersion,
  error:
    e instanceof UpdateError
      ? e.message
      : `the update failed: ${(e as NodeJS.ErrnoException).code === 'EACCES' ? 'permission denied' : (e as Error).message}`,
});

/** The file for this platform of a release whose signature and hashes check out. */
const verified = (deps: Omit<Deps, 'target'>, fetched: FetchedRelease) =>
  verifyRelease(
    deps.server,
    fetched,
    deps.platform ?? platformKey(),
    deps.trustedKeys ?? TRUSTED_RELEASE_KEYS,
    deps.fetchImpl,
  );

/** Downloads, verifies and installs the server's release over `target`. Never throws. */
export async function installRelease(deps: Deps): Promise<UpdateOutcome> {
  const { currentVersion: from } = deps;
  try {
    const fetched = await fetchRelease(deps.server, deps.fetchImpl);
    const { release } = fetched;
    if (compareVersions(release.version, from) <= 0)
      return { status: 'current', fromVersion: from, toVersion: from };
    const file = await verified(deps, fetched);
    const fresh = path.join(path.dirname(deps.target), `.${path.basename(deps.target)}.${process.pid}.new`);
    await downloadVerified(deps.server, release.version, file, fresh, deps.fetchImpl);
    try {
      await replaceExecutable(fresh, deps.target);
    } catch (e) {
      await rm(fresh, { force: true });
      throw new UpdateError(
        `cannot replace ${deps.target} (${(e as Error).message}); this version keeps running`,
      );
    }
    return { status: 'updated', fromVersion: from, toVersion: release.version };
  } catch (e) {
    return failed(from, e);
  }
}

/** Whether this process may write the folder of its executable (a hardened service may not). */
export async function canReplace(target: string): Promise<boolean> {
  try {
    await access(path.dirname(target), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

export const writeOutcome = (stateDir: string, outcome: UpdateOutcome) =>
  writeFileAtomic(path.join(stateDir, RESULT_FILE), JSON.stringify(outcome) + '\n');

/** The outcome an earlier process left for this one to report, if any. */
export async function readOutcome(stateDir: string): Promise<UpdateOutcome | undefined> {
  try {
    const o = JSON.parse(await readFile(path.join(stateDir, RESULT_FILE), 'utf8')) as UpdateOutcome;
    return ['updated', 'current', 'failed'].includes(o.status) ? o : undefined;
  } catch {
    return undefined;
  }
}

export const clearOutcome = (stateDir: string) => rm(path.join(stateDir, RESULT_FILE), { force: true });

export const writeRequest = (stateDir: string, fromVersion: string) =>
  writeFileAtomic(
    path.join(stateDir, REQUEST_FILE),
    JSON.stringify({ fromVersion, requestedAt: new Date().toISOString() }) + '\n',
  );

/**
 * The privileged half (ExecStartPre=+): when the daemon asked for an update, install it and leave
 * the outcome for the daemon. Without a request it does nothing; with updates turned off on the
 * host since the request was left, it refuses it.
 */
export async function applyRequest(
  deps: Deps & { stateDir: string; updatesAllowed: boolean },
): Promise<UpdateOutcome | undefined> {
  const request = path.join(deps.stateDir, REQUEST_FILE);
  try {
    await access(request);
  } catch {
    return undefined;
  }
  const outcome = deps.updatesAllowed ? await installRelease(deps) : updatesOff(deps.currentVersion);
  await writeOutcome(deps.stateDir, outcome);
  await rm(request, { force: true });
  return outcome;
}
