// What the Agent Setup Wizard shows (spec §2): download paths and install commands per platform
// and method. Pure, so the exact strings are unit-tested.

export type AgentPlatform = 'linux' | 'windows';
export type InstallMethod = 'automated' | 'manual';

export const WIZARD_STEPS = 6;
/** Step 4 (Download) is skipped when the automated installer is chosen, in both directions. */
export const DOWNLOAD_STEP = 4;
/** The fade between steps. */
export const STEP_TRANSITION_MS = 150;
export const COPIED_MS = 2000;

/** Shown in place of a missing API key. */
export const MASKED_API_KEY = '••••••••••••••••';

export const AGENT_BINARY: Record<AgentPlatform, string> = {
  linux: 'coffer-agent-linux-x64',
  windows: 'coffer-agent-windows-x64.exe',
};

export function downloadPath(platform: AgentPlatform): string {
  return `/downloads/${AGENT_BINARY[platform]}`;
}

/** Windows has no automated installer. */
export function effectiveMethod(platform: AgentPlatform, method: InstallMethod): InstallMethod {
  return platform === 'windows' ? 'manual' : method;
}

export function installCommand(
  platform: AgentPlatform,
  method: InstallMethod,
  origin: string,
  apiKey: string | null | undefined,
): string {
  const key = apiKey || MASKED_API_KEY;
  if (effectiveMethod(platform, method) === 'automated') {
    return `curl -fsSL ${origin}/downloads/install.sh | sudo bash -s -- --server ${origin} --api-key ${key}`;
  }
  if (platform === 'windows') {
    // cmd.exe: no chmod; '.\' runs the binary from the current folder (also valid in PowerShell).
    const exe = `.\\${AGENT_BINARY.windows}`;
    return `${exe} init --server ${origin} --api-key ${key} && ${exe} db add production-db --uri - && ${exe} run`;
  }
  const bin = AGENT_BINARY.linux;
  return `chmod +x ${bin} && ./${bin} init --server ${origin} --api-key ${key} && ./${bin} db add production-db --uri - && ./${bin} run`;
}

/** The step after `step` (Next), skipping Download for the automated installer. */
export function nextStep(step: number, method: InstallMethod): number {
  const next = Math.min(WIZARD_STEPS, step + 1);
  return next === DOWNLOAD_STEP && method === 'automated' ? DOWNLOAD_STEP + 1 : next;
}

/** The step before `step` (Previous), skipping Download for the automated installer. */
export function previousStep(step: number, method: InstallMethod): number {
  const prev = Math.max(1, step - 1);
  return prev === DOWNLOAD_STEP && method === 'automated' ? DOWNLOAD_STEP - 1 : prev;
}
