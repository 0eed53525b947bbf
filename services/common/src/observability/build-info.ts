import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Which code a process runs: the release version and the commit it was built from. */
export interface BuildInfo {
  version: string;
  commit: string;
}

const here = __dirname;
const COMMIT = /^[0-9a-f]{7,40}$/;

function packageVersion(): string {
  try {
    // dist/observability → the package's own manifest; the services are released together with it.
    const pkg = JSON.parse(readFileSync(path.join(here, '..', '..', 'package.json'), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function gitCommit(): string {
  try {
    // A checkout (the local run, tests); images have no .git and pass COFFER_COMMIT instead.
    const out = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: here,
      encoding: 'utf8',
      timeout: 2_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return COMMIT.test(out) ? out : 'unknown';
  } catch {
    return 'unknown';
  }
}

let cached: BuildInfo | undefined;

/**
 * The build this process runs, read once: `COFFER_VERSION` / `COFFER_COMMIT` when set (the image
 * build sets the commit), else the package version and the checkout's commit.
 */
export function buildInfo(env: NodeJS.ProcessEnv = process.env): BuildInfo {
  if (env === process.env && cached) return cached;
  const envCommit = env.COFFER_COMMIT?.trim().toLowerCase();
  const info = {
    version: env.COFFER_VERSION?.trim() || packageVersion(),
    commit: envCommit && COMMIT.test(envCommit) ? envCommit : gitCommit(),
  };
  if (env === process.env) cached = info;
  return info;
}
