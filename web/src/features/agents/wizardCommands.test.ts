import {
  downloadPath,
  effectiveMethod,
  installCommand,
  newApiKeyCommand,
  nextStep,
  packageCommand,
  previousStep,
  reachabilityHint,
  uninstallCommand,
} from './wizardCommands';

const origin = 'https://coffer.example';

describe('install commands', () => {
  it('automated Linux: one curl | bash line', () => {
    expect(installCommand('linux', 'automated', origin)).toBe(
      'curl -fsSL https://coffer.example/downloads/install.sh | sudo bash -s -- --server https://coffer.example',
    );
  });

  it('manual Linux: install.sh step by step, for the binary saved in step 4', () => {
    expect(installCommand('linux', 'manual', origin).split('\n')).toEqual([
      'curl -fsSLO https://coffer.example/downloads/SHA256SUMS',
      'curl -fsSLO https://coffer.example/downloads/install.sh',
      'sha256sum -c --ignore-missing SHA256SUMS',
      'sudo install -m 0755 coffer-agent-linux-x64 /usr/local/bin/coffer-agent',
      'sudo useradd --system --user-group --home-dir /var/lib/coffer --no-create-home --shell /usr/sbin/nologin coffer',
      'sudo install -d -m 0700 -o coffer -g coffer /etc/coffer /var/lib/coffer /var/lib/coffer/tmp',
      'sudo /usr/local/bin/coffer-agent init --server https://coffer.example --config /etc/coffer/agent.json --state-dir /var/lib/coffer',
      'sudo /usr/local/bin/coffer-agent key export --out coffer-master.key',
      'sudo bash install.sh --server https://coffer.example',
      'sudo /usr/local/bin/coffer-agent db add production-db --uri -',
    ]);
  });

  it('Windows: always manual, install.ps1 in an elevated PowerShell', () => {
    const lines = [
      'cd $HOME\\Downloads',
      '[Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12',
      'Invoke-WebRequest -UseBasicParsing https://coffer.example/downloads/install.ps1 -OutFile install.ps1',
      'powershell -ExecutionPolicy Bypass -File .\\install.ps1 -Server https://coffer.example',
    ];
    expect(installCommand('windows', 'manual', origin)).toBe(lines.join('\n'));
    expect(installCommand('windows', 'automated', origin)).toBe(lines.join('\n'));
    expect(effectiveMethod('windows', 'automated')).toBe('manual');
    expect(effectiveMethod('linux', 'automated')).toBe('automated');
  });

  it('never carries the API key: the installers and init ask for it', () => {
    for (const platform of ['linux', 'windows'] as const)
      for (const method of ['automated', 'manual'] as const)
        expect(installCommand(platform, method, origin)).not.toMatch(/api-?key/i);
  });

  it('downloads from /downloads', () => {
    expect(downloadPath('linux')).toBe('/downloads/coffer-agent-linux-x64');
    expect(downloadPath('windows')).toBe('/downloads/coffer-agent-windows-x64.exe');
  });
});

describe('giving an installed agent the new API key', () => {
  it('is init with the server; it asks for the new key (and keeps the master key and databases)', () => {
    expect(newApiKeyCommand('linux', origin)).toBe(
      `sudo /usr/local/bin/coffer-agent init --server ${origin}`,
    );
    expect(newApiKeyCommand('windows', origin)).toBe(
      `& "$env:ProgramFiles\\Coffer\\coffer-agent.exe" init --server ${origin}`,
    );
  });
});

describe('install commands for a root shell without sudo', () => {
  it('are the same commands without sudo', () => {
    expect(installCommand('linux', 'automated', origin, { root: true })).toBe(
      `curl -fsSL ${origin}/downloads/install.sh | bash -s -- --server ${origin}`,
    );
    const manual = installCommand('linux', 'manual', origin, { root: true });
    expect(manual).not.toMatch(/sudo/);
    expect(manual.split('\n')).toContain(
      'install -m 0755 coffer-agent-linux-x64 /usr/local/bin/coffer-agent',
    );
    expect(manual.split('\n')).toHaveLength(installCommand('linux', 'manual', origin).split('\n').length);
    // Windows has no sudo to leave out.
    expect(installCommand('windows', 'manual', origin, { root: true })).toBe(
      installCommand('windows', 'manual', origin),
    );
  });
});

describe('package and container commands', () => {
  it('apt: the repository key into /etc/apt/keyrings, its source, the package, then init', () => {
    expect(packageCommand('apt', origin).split('\n')).toEqual([
      'sudo install -d -m 0755 /etc/apt/keyrings',
      `curl -fsSL ${origin}/downloads/apt/coffer-archive-keyring.gpg | sudo tee /etc/apt/keyrings/coffer.gpg >/dev/null`,
      `echo "deb [signed-by=/etc/apt/keyrings/coffer.gpg] ${origin}/downloads/apt stable main" | sudo tee /etc/apt/sources.list.d/coffer.list >/dev/null`,
      'sudo apt-get update && sudo apt-get install -y coffer-agent',
      `sudo coffer-agent init --server ${origin} --config /etc/coffer/agent.json --state-dir /var/lib/coffer`,
      'sudo coffer-agent key export --out coffer-master.key',
      'sudo systemctl enable --now coffer-agent',
      'sudo coffer-agent db add production-db --uri -',
    ]);
  });

  it('dnf: a repository file that checks the metadata and package signatures', () => {
    const [repo, install, init] = packageCommand('dnf', origin).split('\n');
    expect(repo).toBe(
      `printf '[coffer]\\nname=Coffer agent\\nbaseurl=${origin}/downloads/yum\\nenabled=1\\ngpgcheck=1\\nrepo_gpgcheck=1\\ngpgkey=${origin}/downloads/yum/RPM-GPG-KEY-coffer\\n' | sudo tee /etc/yum.repos.d/coffer.repo >/dev/null`,
    );
    expect(install).toBe('sudo dnf install -y coffer-agent');
    expect(init).toMatch(/^sudo coffer-agent init --server /);
  });

  it('a root shell without sudo: every sudo goes, the one after && too', () => {
    for (const option of ['apt', 'dnf'] as const) {
      const asRoot = packageCommand(option, origin, { root: true });
      expect(asRoot).not.toMatch(/sudo/);
      expect(asRoot.split('\n')).toHaveLength(packageCommand(option, origin).split('\n').length);
    }
    expect(packageCommand('apt', origin, { root: true })).toContain(
      'apt-get update && apt-get install -y coffer-agent',
    );
  });

  it('Docker: the API key from an env file, configuration and key on a volume, no key on a command line', () => {
    const lines = packageCommand('docker', origin).split('\n');
    expect(lines[0]).toBe(
      "(umask 077 && read -rsp 'Coffer API key: ' key && echo && printf 'COFFER_API_KEY=%s\\n' \"$key\" > coffer.env)",
    );
    expect(lines[1]).toBe(
      `docker run --rm -e COFFER_AGENT_CONFIG=/var/lib/coffer/agent.json -v coffer-agent:/var/lib/coffer -it --env-file coffer.env coffer/agent init --server ${origin} --state-dir /var/lib/coffer`,
    );
    expect(lines.at(-1)).toBe(
      'docker run -d --name coffer-agent --restart unless-stopped -e COFFER_AGENT_CONFIG=/var/lib/coffer/agent.json -v coffer-agent:/var/lib/coffer coffer/agent',
    );
    expect(lines.join('\n')).toContain('key export > coffer-master.key');
  });
});

describe('uninstalling an agent before removing it', () => {
  it('runs the installer with --uninstall (-Uninstall on Windows)', () => {
    expect(uninstallCommand('linux', origin)).toBe(
      `curl -fsSL ${origin}/downloads/install.sh | sudo bash -s -- --uninstall`,
    );
    expect(uninstallCommand('windows', origin)).toBe(
      `Invoke-WebRequest -UseBasicParsing ${origin}/downloads/install.ps1 -OutFile install.ps1; ` +
        'powershell -ExecutionPolicy Bypass -File .\\install.ps1 -Uninstall',
    );
  });
});

describe('step navigation', () => {
  it('skips Download both ways for the automated installer', () => {
    expect(nextStep(3, 'automated')).toBe(5);
    expect(previousStep(5, 'automated')).toBe(3);
    expect(nextStep(3, 'manual')).toBe(4);
    expect(previousStep(5, 'manual')).toBe(4);
  });

  it('stays within 1..6', () => {
    expect(previousStep(1, 'manual')).toBe(1);
    expect(nextStep(6, 'manual')).toBe(6);
    expect(nextStep(1, 'automated')).toBe(2);
  });
});

describe('reachabilityHint', () => {
  it('says HTTPS and its port only for an https address', () => {
    expect(reachabilityHint('https://coffer.example')).toBe(
      'If it does not show up within a minute, check that the server can reach https://coffer.example over HTTPS (port 443) and that the API key is the current one.',
    );
    expect(reachabilityHint('https://coffer.example:8443')).toContain('over HTTPS (port 8443)');
  });

  it('says plain HTTP, the real port and that the key is not encrypted for an http address', () => {
    const hint = reachabilityHint('http://127.0.0.1:5173');
    expect(hint).toContain('reach http://127.0.0.1:5173 over plain HTTP (port 5173)');
    expect(hint).not.toContain('HTTPS');
    expect(hint).toContain('the API key travels in clear text');
    expect(reachabilityHint('http://backup.lan')).toContain('(port 80)');
  });
});
