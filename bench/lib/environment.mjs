// What the numbers were measured on: machine, versions, commit.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { REPO } from './coffer.mjs';

const require = createRequire(import.meta.url);

const run = (cmd, args) => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
};

const which = (name) => run('sh', ['-c', `command -v "${name}"`]);

/** The Go module version a Go binary was built from (`go version -m`), else its own --version. */
function goModuleVersion(name, module) {
  const bin = which(name);
  if (!bin) return 'missing';
  const line = run('go', ['version', '-m', bin])
    .split('\n')
    .find((l) => l.includes(`\tmod\t${module}`) || l.includes(`\tdep\t${module}`));
  return line ? line.split('\t')[3] : run(bin, ['--version']).split('\n')[0];
}

export function requireTools() {
  const missing = ['mongodump', 'mongorestore', 'ferretdb', 'restic', 'gzip'].filter((t) => !which(t));
  if (missing.length)
    throw new Error(
      `${missing.join(', ')} not on PATH. Put ~/.cache/coffer/bin (deploy/local/bootstrap.sh) on PATH and apt-get install -y restic.`,
    );
  if (Number(process.versions.node.split('.')[0]) < 24)
    throw new Error('Node 24 is needed (zstd in node:zlib)');
}

export function describeEnvironment() {
  const mem = fs.readFileSync('/proc/meminfo', 'utf8');
  const memKb = Number(/^MemTotal:\s+(\d+)/m.exec(mem)?.[1]);
  const cpu = /^model name\s*:\s*(.*)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.arch();
  const commit = run('git', ['-C', REPO, 'rev-parse', '--short', 'HEAD']);
  // Uncommitted changes to what runs (tests do not count): the numbers may not match the commit.
  const dirty = run('git', [
    '-C',
    REPO,
    'status',
    '--porcelain',
    '--untracked-files=no',
    '--',
    'agent',
    'services',
    'deploy',
    ':!*.test.ts',
  ]);
  const { DEFAULT_ZSTD_LEVEL } = require('../../agent/dist/crypto/encrypt.js');
  return {
    date: new Date().toISOString(),
    nproc: os.availableParallelism(),
    memoryGiB: memKb / 1048576,
    cpu,
    kernel: os.release(),
    node: process.version,
    mongoTools: goModuleVersion('mongodump', 'github.com/mongodb/mongo-tools'),
    ferretdb: goModuleVersion('ferretdb', 'github.com/FerretDB/FerretDB'),
    restic: run('restic', ['version']).split(' ').slice(0, 2).join(' '),
    gzip: run('gzip', ['--version']).split('\n')[0],
    agentVersion: JSON.parse(fs.readFileSync(`${REPO}/agent/package.json`, 'utf8')).version,
    zstdLevel: DEFAULT_ZSTD_LEVEL,
    commit: commit + (dirty ? ' (with uncommitted changes to agent/services/deploy)' : ''),
    loadStart: os.loadavg(),
  };
}
