// The agent as a Debian package (coffer-agent_VERSION_ARCH.deb), built with dpkg-deb, and as an
// RPM (coffer-agent-VERSION-1.ARCH.rpm), built with rpmbuild from Debian's rpm package: the binary
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
const RPM_ARCH = { 'linux-x64': 'x86_64', 'linux-arm64': 'aarch64' };
const SUMMARY = 'Coffer backup agent: encrypted MongoDB backups';
const DESCRIPTION = [
  'Dumps MongoDB databases with the bundled mongodump, compresses and encrypts them with a key',
  'that never leaves this server, and sends them to Coffer. Runs as the systemd service',
  'coffer-agent under its own user.',
];
/** Where each file of a package goes: the same in the .deb and the .rpm. */
const BIN = '/usr/bin/coffer-agent';
const TOOLS_DIR = '/usr/lib/coffer/tools';
const UNIT = '/lib/systemd/system/coffer-agent.service';

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
    const put = writerInto(root);
    putPayload(put, { agent, tools, unitTemplate });
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
        `Description: ${SUMMARY}`,
        ...DESCRIPTION.map((l) => ` ${l}`),
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

/** Writes `content` (a Buffer or text) at `file` under `root`, with `mode` whatever the umask. */
function writerInto(root) {
  return (file, content, mode) => {
    const dest = path.join(root, file);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.writeFileSync(dest, content, { mode });
    fs.chmodSync(dest, mode);
  };
}

/** The files both packages install: the agent, its Database Tools and the systemd unit. */
function putPayload(put, { agent, tools, unitTemplate, unit = UNIT }) {
  put(BIN.slice(1), fs.readFileSync(agent), 0o755);
  for (const [tool, file] of Object.entries(tools))
    put(`${TOOLS_DIR.slice(1)}/${tool}`, fs.readFileSync(file), 0o755);
  put(unit.slice(1), unitFor(unitTemplate, BIN), 0o644);
}

/** The package's body of a Debian maintainer script, without its #! line. */
const scriptBody = (scriptsDir, name) =>
  fs.readFileSync(path.join(scriptsDir, name), 'utf8').replace(/^#!.*\n/, '');

/**
 * RPM's scriptlets, made from the .deb's maintainer scripts so both packages do the same. RPM
 * passes a count instead of dpkg's action: %post gets 1 (install) or 2 (upgrade), both dpkg's
 * `configure`; %preun and %postun get 0 only when the package goes (dpkg's `remove`). In an RPM
 * upgrade the new package's %post runs before the old one's %preun, so the old %preun must not stop
 * what the new %post (re)started: with a count above 0 they do nothing. There is no purge: like
 * `dpkg -r`, `rpm -e` keeps /etc/coffer and /var/lib/coffer (docs/agent-install.md).
 */
function rpmScriptlets(scriptsDir) {
  const onRemoval = (name) => `[ "$1" = 0 ] || exit 0\nset -- remove\n${scriptBody(scriptsDir, name)}`;
  return [
    `%post\nset -- configure\n${scriptBody(scriptsDir, 'postinst')}`,
    `%preun\n${onRemoval('prerm')}`,
    `%postun\n${onRemoval('postrm')}`,
  ].join('\n');
}

/**
 * Builds the RPM for `target` into `out` with rpmbuild (Debian's rpm package); returns its file
 * name, or undefined for a platform that has none. The unit goes to /usr/lib/systemd/system, the
 * unit folder of RHEL and Fedora (/lib is a link to /usr/lib there).
 */
export function buildRpm({ out, version, target, agent, tools, unitTemplate, scriptsDir }) {
  const arch = RPM_ARCH[target];
  if (!arch) return undefined;
  // RPM versions have no '-': a pre-release (1.0.0-rc.1) sorts before its release with '~'.
  const rpmVersion = version.replaceAll('-', '~');
  const name = `coffer-agent-${rpmVersion}-1.${arch}.rpm`;
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-rpm-'));
  try {
    const stage = path.join(top, 'stage');
    const unit = `/usr${UNIT}`;
    putPayload(writerInto(stage), { agent, tools, unitTemplate, unit });
    const files = [BIN, ...Object.keys(tools).map((t) => `${TOOLS_DIR}/${t}`), unit];
    const spec = [
      'Name: coffer-agent',
      `Version: ${rpmVersion}`,
      'Release: 1',
      `Summary: ${SUMMARY}`,
      'License: Proprietary',
      'URL: https://coffer.invalid',
      // The same needs as the .deb's Depends: glibc 2.28 (the installer's preflight), useradd.
      'Requires: glibc >= 2.28',
      'Requires(post): shadow-utils',
      // The binaries are finished: no dependencies read from them, no stripping, no debug package.
      'AutoReqProv: no',
      '%global debug_package %{nil}',
      '%global __os_install_post %{nil}',
      '%global _build_id_links none',
      '%description',
      ...DESCRIPTION,
      '%install',
      'cp -a %{stage}/. %{buildroot}/',
      '%files',
      '%dir /usr/lib/coffer',
      `%dir ${TOOLS_DIR}`,
      ...files.map((f) => `%attr(${f === unit ? '0644' : '0755'},root,root) ${f}`),
      rpmScriptlets(scriptsDir),
      '',
    ].join('\n');
    fs.writeFileSync(path.join(top, 'coffer-agent.spec'), spec);
    execFileSync(
      'rpmbuild',
      [
        '-bb',
        '--quiet',
        '--target',
        arch,
        '--define',
        `_topdir ${top}`,
        '--define',
        `_rpmdir ${out}`,
        '--define',
        '_build_name_fmt %{NAME}-%{VERSION}-%{RELEASE}.%{ARCH}.rpm',
        '--define',
        `stage ${stage}`,
        // gzip: every rpm reads it (zstd payloads need rpm 4.14 with zstd built in).
        '--define',
        '_binary_payload w6.gzdio',
        path.join(top, 'coffer-agent.spec'),
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    return name;
  } finally {
    fs.rmSync(top, { recursive: true, force: true });
  }
}
