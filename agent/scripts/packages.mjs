// The agent as a Debian package (coffer-agent_VERSION_ARCH.deb), built with dpkg-deb: the binary
// at /usr/bin/coffer-agent, its Database Tools at /usr/lib/coffer/tools (where the agent looks,
// beside its bin folder), the same hardened systemd unit install.sh writes, and maintainer scripts
// (agent/install/deb/) that create the `coffer` user and folders and start the service once it is
// configured. /etc/coffer/agent.json is not a file of the package: `init` writes it, so an upgrade
// or a remove never touches it (a purge deletes it, as install.sh --uninstall --purge does).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ARCH = { 'linux-x64': 'amd64', 'linux-arm64': 'arm64' };

/** The unit file with the binary's path filled in and no extra environment. */
export function unitFor(template, bin, environment = '') {
  return template.replaceAll('@BIN@', bin).replace('@ENVIRONMENT@\n', environment ? `${environment}\n` : '');
}

/**
 * Builds the package for `target` into `out`; returns its file name, or undefined for a platform
 * that has none (Windows).
 */
export function buildDeb({ out, version, target, agent, tools, unitTemplate, scriptsDir }) {
  const arch = ARCH[target];
  if (!arch) return undefined;
  const name = `coffer-agent_${version}_${arch}.deb`;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-deb-'));
  fs.chmodSync(root, 0o755); // the package's ./ (mkdtemp makes it 0700)
  try {
    /** Writes `content` (a Buffer or text) at `file` in the package. */
    const put = (file, content, mode) => {
      const dest = path.join(root, file);
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      fs.writeFileSync(dest, content, { mode });
      fs.chmodSync(dest, mode); // whatever the umask
    };
    put('usr/bin/coffer-agent', fs.readFileSync(agent), 0o755);
    for (const [tool, file] of Object.entries(tools))
      put(`usr/lib/coffer/tools/${tool}`, fs.readFileSync(file), 0o755);
    put('lib/systemd/system/coffer-agent.service', unitFor(unitTemplate, '/usr/bin/coffer-agent'), 0o644);
    for (const script of ['postinst', 'prerm', 'postrm'])
      put(`DEBIAN/${script}`, fs.readFileSync(path.join(scriptsDir, script)), 0o755);
    const installedKb = Math.ceil(
      [agent, ...Object.values(tools)].reduce((n, f) => n + fs.statSync(f).size, 0) / 1024,
    );
    put(
      'DEBIAN/control',
      [
        'Package: coffer-agent',
        `Version: ${version}`,
        `Architecture: ${arch}`,
        'Maintainer: Coffer <support@coffer.invalid>',
        `Installed-Size: ${installedKb}`,
        // glibc 2.28 as the installer's preflight requires; passwd brings useradd.
        'Depends: libc6 (>= 2.28), passwd',
        'Section: admin',
        'Priority: optional',
        'Description: Coffer backup agent: encrypted MongoDB backups',
        ' Dumps MongoDB databases with the bundled mongodump, compresses and encrypts them with a key',
        ' that never leaves this server, and sends them to Coffer. Runs as the systemd service',
        ' coffer-agent under its own user.',
        '',
      ].join('\n'),
      0o644,
    );
    // gzip: every dpkg reads it (zstd needs dpkg 1.21.18, Debian 12 and later).
    execFileSync('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z6', '--build', root, path.join(out, name)], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return name;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
