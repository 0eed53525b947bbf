// The MongoDB Database Tools the agent's downloads carry (mongodump, mongorestore; Apache-2.0),
// built for each agent platform from the pinned mongo-tools version (MONGO_TOOLS_VERSION in
// deploy/local/versions.sh, the same source the local bootstrap builds from) with Go's cross
// compiler, inside a small module of our own: the module proxy serves pinned versions but refuses
// the version lists `go install pkg@v` asks for. Built once per version and platform into
// $COFFER_CACHE/database-tools/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const DATABASE_TOOLS = ['mongodump', 'mongorestore'];
const MODULE = 'github.com/mongodb/mongo-tools';

/** MONGO_TOOLS_VERSION from deploy/local/versions.sh: one pin for the local run and the downloads. */
export function databaseToolsVersion(repo) {
  const text = fs.readFileSync(path.join(repo, 'deploy/local/versions.sh'), 'utf8');
  const version = text.match(/^MONGO_TOOLS_VERSION=(\S+)$/m)?.[1];
  if (!version) throw new Error('deploy/local/versions.sh sets no MONGO_TOOLS_VERSION');
  return version;
}

/**
 * The tools for one platform ({ goos, goarch, exe }) as { mongodump: file, mongorestore: file }.
 * A pseudo-version carries no release number, so `--version` prints the pinned module version
 * and its commit: what the agent reports at start.
 */
export function buildDatabaseTools({ cache, version, goos, goarch, exe, log }) {
  const dir = path.join(cache, 'database-tools', version, `${goos}-${goarch}`);
  const files = Object.fromEntries(DATABASE_TOOLS.map((t) => [t, path.join(dir, t + exe)]));
  if (Object.values(files).every((f) => fs.existsSync(f))) return files;
  const mod = path.join(cache, 'gobuild', `database-tools-${version}`);
  const env = {
    ...process.env,
    CGO_ENABLED: '0',
    GOOS: goos,
    GOARCH: goarch,
    GOFLAGS: '-mod=mod',
    GONOSUMDB: MODULE,
  };
  if (!fs.existsSync(path.join(mod, 'go.sum'))) {
    log(`fetching ${MODULE}@${version} from the Go module proxy`);
    fs.rmSync(mod, { recursive: true, force: true });
    fs.mkdirSync(mod, { recursive: true });
    const go = (args) => execFileSync('go', args, { cwd: mod, env, stdio: ['ignore', 'ignore', 'inherit'] });
    go(['mod', 'init', 'coffer.local/build/database-tools']);
    go(['get', ...DATABASE_TOOLS.map((t) => `${MODULE}/${t}/main@${version}`)]);
  }
  const commit = version.split('-').pop();
  const ldflags = `-s -w -X main.VersionStr=${version} -X main.GitCommit=${commit}`;
  const tmp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  for (const tool of DATABASE_TOOLS) {
    log(`building ${tool} for ${goos}/${goarch} (first build of this version only)`);
    execFileSync(
      'go',
      ['build', '-trimpath', '-ldflags', ldflags, '-o', path.join(tmp, tool + exe), `${MODULE}/${tool}/main`],
      { cwd: mod, env, stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  try {
    fs.renameSync(tmp, dir);
  } catch {
    fs.rmSync(tmp, { recursive: true, force: true }); // another build finished it first
  }
  return files;
}

// `node database-tools.mjs`: this machine's tools (the local bootstrap puts them on PATH), from the
// same cache the downloads use, so a fresh machine builds them once. Prints their folder.
if (import.meta.filename === process.argv[1]) {
  const repo = path.resolve(import.meta.dirname, '..', '..');
  const files = buildDatabaseTools({
    cache: process.env.COFFER_CACHE || path.join(os.homedir(), '.cache', 'coffer'),
    version: databaseToolsVersion(repo),
    goos: 'linux',
    goarch: process.arch === 'arm64' ? 'arm64' : 'amd64',
    exe: '',
    log: (msg) => process.stderr.write(`[database tools] ${msg}\n`),
  });
  process.stdout.write(`${path.dirname(files.mongodump)}\n`);
}
