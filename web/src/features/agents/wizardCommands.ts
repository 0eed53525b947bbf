// What the Agent Setup Wizard shows (product §2): download paths and install commands per platform
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

/** Where install.sh installs the agent binary. */
const LINUX_BIN = '/usr/local/bin/coffer-agent';

/**
 * The text for step 5. Manual methods are several lines, one command each, shown in a block that
 * keeps newlines and copied whole. No command carries the API key: a command line is visible to
 * every user of the server (ps) and stays in the shell's history. The installers and `init` ask
 * for the key in the terminal (the wizard shows it beside the command), or read COFFER_API_KEY.
 */
export function installCommand(
  platform: AgentPlatform,
  method: InstallMethod,
  origin: string,
  opts: { root?: boolean } = {},
): string {
  const text =
    effectiveMethod(platform, method) === 'automated'
      ? `curl -fsSL ${origin}/downloads/install.sh | sudo bash -s -- --server ${origin}`
      : (platform === 'windows' ? windowsLines : linuxLines)(origin).join('\n');
  return platform === 'linux' && opts.root ? withoutSudo(text) : text;
}

/**
 * For a root shell (a container, a minimal server) that has no sudo at all ('sudo: command not
 * found'): the same commands, run directly.
 */
export const withoutSudo = (commands: string) => commands.replace(/(^|\| |&& )sudo /gm, '$1');

/** The other ways to install on Linux, shown beside the command (docs/agent-install.md). */
export type LinuxPackage = 'apt' | 'dnf' | 'docker';
export const LINUX_PACKAGES: ReadonlyArray<{ value: LinuxPackage; label: string }> = [
  { value: 'apt', label: 'Debian/Ubuntu package (apt)' },
  { value: 'dnf', label: 'RHEL/CentOS/Fedora package (dnf)' },
  { value: 'docker', label: 'Docker' },
];
/** The agent's container image (deploy/Dockerfile, target agent). */
const AGENT_IMAGE = 'coffer/agent';
/** Where the APT source trusts the repository key (apt's signed-by). */
const APT_KEYRING = '/etc/apt/keyrings/coffer.gpg';

/**
 * The commands for a package from the server's APT or YUM repository (signed with the release's
 * OpenPGP key, which the first lines fetch), or the agent's image under Docker. The package brings
 * the systemd unit and the user; `init` then asks for the API key as in the manual steps.
 */
export function packageCommand(option: LinuxPackage, origin: string, opts: { root?: boolean } = {}): string {
  const lines =
    option === 'docker'
      ? dockerLines(origin)
      : [...(option === 'apt' ? aptLines(origin) : dnfLines(origin)), ...configureLines(origin)];
  const text = lines.join('\n');
  return opts.root ? withoutSudo(text) : text;
}

/** The repository's key, its source line, and the package. */
export function aptLines(origin: string): string[] {
  return [
    'sudo install -d -m 0755 /etc/apt/keyrings',
    `curl -fsSL ${origin}/downloads/apt/coffer-archive-keyring.gpg | sudo tee ${APT_KEYRING} >/dev/null`,
    `echo "deb [signed-by=${APT_KEYRING}] ${origin}/downloads/apt stable main" | sudo tee /etc/apt/sources.list.d/coffer.list >/dev/null`,
    'sudo apt-get update && sudo apt-get install -y coffer-agent',
  ];
}

/** dnf checks the repository's signature (repo_gpgcheck) and each package's (gpgcheck). */
function dnfLines(origin: string): string[] {
  const repo = [
    '[coffer]',
    'name=Coffer agent',
    `baseurl=${origin}/downloads/yum`,
    'enabled=1',
    'gpgcheck=1',
    'repo_gpgcheck=1',
    `gpgkey=${origin}/downloads/yum/RPM-GPG-KEY-coffer`,
  ];
  return [
    `printf '${repo.join('\\n')}\\n' | sudo tee /etc/yum.repos.d/coffer.repo >/dev/null`,
    'sudo dnf install -y coffer-agent',
  ];
}

/** What the package's own message says to do once it is installed, then the first database. */
function configureLines(origin: string): string[] {
  return [
    `sudo coffer-agent init --server ${origin} --config /etc/coffer/agent.json --state-dir /var/lib/coffer`,
    'sudo coffer-agent key export --out coffer-master.key',
    'sudo systemctl enable --now coffer-agent',
    'sudo coffer-agent db add production-db --uri -',
  ];
}

/**
 * The configuration and state on a volume (owned by the image's user), the API key from an env
 * file written without it ever being on a command line (removed once `init` has read it), the encryption key exported to this
 * folder, then the agent in the background, restarted by Docker.
 */
function dockerLines(origin: string): string[] {
  const volume = '-e COFFER_AGENT_CONFIG=/var/lib/coffer/agent.json -v coffer-agent:/var/lib/coffer';
  const run = `docker run --rm ${volume}`;
  return [
    `(umask 077 && read -rsp 'Coffer API key: ' key && echo && printf 'COFFER_API_KEY=%s\\n' "$key" > coffer.env)`,
    `${run} -it --env-file coffer.env ${AGENT_IMAGE} init --server ${origin} --state-dir /var/lib/coffer`,
    // The configuration holds the key now: no copy of it stays in this folder.
    'rm -f coffer.env',
    `(umask 077 && ${run} ${AGENT_IMAGE} key export > coffer-master.key)`,
    `${run} -i ${AGENT_IMAGE} db add production-db --uri -`,
    `docker run -d --name coffer-agent --restart unless-stopped ${volume} ${AGENT_IMAGE}`,
  ];
}

/**
 * install.ps1 verifies the exe saved in step 4 (or downloads it) and installs the service. Windows
 * PowerShell 5.1 may offer only TLS 1.0 until told otherwise, and an elevated prompt starts in
 * System32, hence the first two lines; Bypass lets the unsigned script run under any local policy.
 */
function windowsLines(origin: string): string[] {
  return [
    'cd $HOME\\Downloads',
    '[Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12',
    `Invoke-WebRequest -UseBasicParsing ${origin}/downloads/install.ps1 -OutFile install.ps1`,
    `powershell -ExecutionPolicy Bypass -File .\\install.ps1 -Server ${origin}`,
  ];
}

/**
 * install.sh's steps for the binary saved in step 4. The full path after sudo: CentOS's sudo does
 * not search /usr/local/bin. The installer, verified with the binary, then only adds the systemd
 * unit: run on an existing configuration it keeps it (and the key).
 */
function linuxLines(origin: string): string[] {
  return [
    `curl -fsSLO ${origin}/downloads/SHA256SUMS`,
    `curl -fsSLO ${origin}/downloads/install.sh`,
    'sha256sum -c --ignore-missing SHA256SUMS',
    `sudo install -m 0755 ${AGENT_BINARY.linux} ${LINUX_BIN}`,
    'sudo useradd --system --user-group --home-dir /var/lib/coffer --no-create-home --shell /usr/sbin/nologin coffer',
    'sudo install -d -m 0700 -o coffer -g coffer /etc/coffer /var/lib/coffer /var/lib/coffer/tmp',
    `sudo ${LINUX_BIN} init --server ${origin} --config /etc/coffer/agent.json --state-dir /var/lib/coffer`,
    `sudo ${LINUX_BIN} key export --out coffer-master.key`,
    `sudo bash install.sh --server ${origin}`,
    `sudo ${LINUX_BIN} db add production-db --uri -`,
  ];
}

/**
 * Gives an installed agent the account's new API key after a regeneration: `init` asks for it in
 * the terminal (a key on the command line would show in ps and the history). On an existing
 * configuration it keeps the master key and the databases, and the running agent picks the new
 * key up from its configuration file by itself (no restart).
 */
export function newApiKeyCommand(platform: AgentPlatform, origin: string) {
  return platform === 'windows'
    ? `& "$env:ProgramFiles\\Coffer\\coffer-agent.exe" init --server ${origin}`
    : `sudo ${LINUX_BIN} init --server ${origin}`;
}

/**
 * Stops and uninstalls the agent on its server (the service and the program; the configuration
 * with the encryption key stays). Removing a running agent from the dashboard alone is undone at
 * once: it registers again.
 */
export function uninstallCommand(platform: AgentPlatform, origin: string): string {
  return platform === 'windows'
    ? `Invoke-WebRequest -UseBasicParsing ${origin}/downloads/install.ps1 -OutFile install.ps1; ` +
        'powershell -ExecutionPolicy Bypass -File .\\install.ps1 -Uninstall'
    : `curl -fsSL ${origin}/downloads/install.sh | sudo bash -s -- --uninstall`;
}

/**
 * Step 6's advice when the agent does not show up, true for the address the commands use: the
 * agent needs outbound access to that host and port with the scheme shown (plain HTTP sends the
 * API key unencrypted, worth saying where it is the case).
 */
export function reachabilityHint(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return 'If it does not show up within a minute, check that the server can reach this Coffer address and that the API key is the current one.';
  }
  const https = url.protocol === 'https:';
  const port = url.port || (https ? '443' : '80');
  const how = https ? `over HTTPS (port ${port})` : `over plain HTTP (port ${port})`;
  const base = `If it does not show up within a minute, check that the server can reach ${url.origin} ${how} and that the API key is the current one.`;
  return https
    ? base
    : `${base} This address is not encrypted: the API key travels in clear text, so use an https:// address outside a trusted network.`;
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
