// What this agent is: its version, the platform it was built for and the Node.js inside it.
// The single-executable build (scripts/build-binaries.mjs) fixes the version at bundle time;
// a development run (bin/coffer-agent over dist/) reads it from package.json.
import { readFileSync } from 'node:fs';
import path from 'node:path';

declare const __COFFER_AGENT_VERSION__: string | undefined;

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export const AGENT_VERSION: string =
  typeof __COFFER_AGENT_VERSION__ === 'string' ? __COFFER_AGENT_VERSION__ : packageVersion();

/** The download name's platform part: linux-x64, linux-arm64, windows-x64. */
export function platformKey(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): string {
  return `${platform === 'win32' ? 'windows' : platform}-${arch}`;
}

/** True inside the single executable (Node's SEA), false when run as a script by a Node.js. */
export function isSingleExecutable(): boolean {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('node:sea') as { isSea(): boolean }).isSea();
  } catch {
    return false;
  }
}

/** `coffer-agent --version`: the version, the platform and the Node.js inside. */
export function versionLine(): string {
  const kind = isSingleExecutable() ? 'single executable' : 'script';
  return `coffer-agent ${AGENT_VERSION} (${platformKey()}, Node.js ${process.version}, ${kind})`;
}

/** Orders dotted numeric versions (1.10.0 > 1.9.2); a pre-release suffix sorts before its release. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [main = '', pre = ''] = v.replace(/^v/, '').split('-', 2);
    return { nums: main.split('.').map((n) => Number.parseInt(n, 10) || 0), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < Math.max(x.nums.length, y.nums.length); i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (x.pre === y.pre) return 0;
  if (!x.pre) return 1;
  if (!y.pre) return -1;
  return x.pre < y.pre ? -1 : 1;
}
