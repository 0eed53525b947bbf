import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  AGENT_VERSION,
  compareVersions,
  isSingleExecutable,
  platformKey,
  versionLine,
} from './build-info.js';

describe('compareVersions', () => {
  it.each<[string, string, number]>([
    ['1.10.0', '1.9.2', 1], // numeric, not string order
    ['0.2.0', '0.1.0', 1],
    ['0.1.0', '0.2.0', -1],
    ['2.0.0', '1.99.99', 1],
    ['0.2.0', '0.2.0', 0],
    ['v0.2.0', '0.2.0', 0],
    ['v1.10.0', 'v1.9.0', 1],
    ['1.2', '1.2.0', 0],
    ['1.2.1', '1.2', 1],
    ['0.3.0-rc.1', '0.3.0', -1], // a pre-release comes before its release
    ['0.3.0', '0.3.0-rc.1', 1],
    ['0.3.0-rc.1', '0.2.9', 1], // but after the release before it
    ['0.3.0-rc.1', '0.3.0-rc.2', -1],
    ['0.3.0-rc.1', '0.3.0-rc.1', 0],
  ])('%s vs %s → %i', (a, b, expected) => {
    expect(compareVersions(a, b)).toBe(expected);
  });
});

describe('platformKey', () => {
  it('names platforms as the download files do', () => {
    expect(platformKey('win32', 'x64')).toBe('windows-x64');
    expect(platformKey('linux', 'arm64')).toBe('linux-arm64');
    expect(platformKey('linux', 'x64')).toBe('linux-x64');
    expect(platformKey()).toBe(platformKey(process.platform, process.arch));
  });
});

describe('versionLine', () => {
  it("reads the version from the agent's package.json when run as a script", () => {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(AGENT_VERSION).toBe(pkg.version);
    expect(isSingleExecutable()).toBe(false);
    expect(versionLine()).toBe(
      `coffer-agent ${pkg.version} (${platformKey()}, Node.js ${process.version}, script)`,
    );
  });
});
