// The agent downloads as built (agent/dist/downloads): every file matches SHA256SUMS, whose
// signature the minisign tool verifies with the release key built into the agents and install.sh,
// each zstd copy unpacks to its binary, the Linux binaries run (arm64 under qemu-user) and decrypt the
// format's test vectors with no Node.js installed, and the Windows exe carries the agent. The exe
// itself cannot run here: under Debian's wine 8.0, Node 24 aborts before any script runs
// (docs/agent-install.md).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parsePublicKey, spkiBase64 } from '../../../agent/src/update/minisign';

const REPO = path.resolve(__dirname, '../../..');
const DIR = path.join(REPO, 'agent/dist/downloads');
const CACHE = process.env.COFFER_CACHE || path.join(os.homedir(), '.cache', 'coffer');
const ARM64_SYSROOT = path.join(CACHE, 'arm64-sysroot');
const VERSION = JSON.parse(fs.readFileSync(path.join(REPO, 'agent/package.json'), 'utf8')).version;
const vectors = JSON.parse(fs.readFileSync(path.join(REPO, 'docs/test-vectors/coffer-v1.json'), 'utf8'));
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const keyText = (hex: string) => `coffer-key-v1:${Buffer.from(hex, 'hex').toString('base64url')}\n`;

/** How each Linux binary is started on this x64 machine. */
const linux: Record<string, (bin: string) => string[]> = {
  'coffer-agent-linux-x64': (bin) => [bin],
  'coffer-agent-linux-arm64': (bin) => ['qemu-aarch64-static', '-L', ARM64_SYSROOT, bin],
};

// No Node.js on PATH for the binaries: only what a customer's server has.
const BARE_ENV = { PATH: '/usr/bin:/bin', HOME: os.tmpdir(), LANG: 'C.UTF-8' };

let work: string;
beforeAll(() => {
  if (!fs.existsSync(path.join(DIR, 'SHA256SUMS')))
    throw new Error(`${DIR} has no build: run \`npm run build\` first`);
  if (!fs.existsSync(path.join(ARM64_SYSROOT, 'lib/ld-linux-aarch64.so.1')))
    throw new Error(`${ARM64_SYSROOT} is missing: run deploy/local/bootstrap.sh --with-arm64`);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-binaries-'));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe('the agent downloads', () => {
  it('match SHA256SUMS, and each zstd copy unpacks to its binary', () => {
    const sums = fs.readFileSync(path.join(DIR, 'SHA256SUMS'), 'utf8').trim().split('\n');
    for (const line of sums) {
      const [hash, name] = line.split(/\s+/);
      expect({ name, hash: sha256(fs.readFileSync(path.join(DIR, name!))) }).toEqual({ name, hash });
    }
    for (const name of [...Object.keys(linux), 'coffer-agent-windows-x64.exe']) {
      const unpacked = execFileSync('zstd', ['-dc', path.join(DIR, `${name}.zst`)], { maxBuffer: 512 << 20 });
      expect(sha256(unpacked)).toBe(sha256(fs.readFileSync(path.join(DIR, name))));
      // "roughly a quarter" of the binary
      expect(fs.statSync(path.join(DIR, `${name}.zst`)).size).toBeLessThan(unpacked.length * 0.35);
    }
  });

  it('SHA256SUMS is signed with the release key built into every agent and into install.sh', () => {
    // The local build's key (a production build names its own with COFFER_RELEASE_PUBLIC_KEYS).
    const pub = fs.readFileSync(path.join(REPO, '.coffer-data/release-keys/dev-release.key.pub'), 'utf8');
    const key = parsePublicKey(pub);
    const check = spawnSync('minisign', ['-V', '-P', key.text, '-m', path.join(DIR, 'SHA256SUMS')], {
      encoding: 'utf8',
    });
    expect({ code: check.status, stdout: check.stdout }).toEqual({
      code: 0,
      stdout: expect.stringMatching(
        new RegExp(
          `^Signature and comment signature verified\nTrusted comment: .*coffer-agent ${VERSION}\n$`,
        ),
      ),
    });
    for (const name of [...Object.keys(linux), 'coffer-agent-windows-x64.exe'])
      expect({ name, key: fs.readFileSync(path.join(DIR, name)).includes(key.text) }).toEqual({
        name,
        key: true,
      });
    expect(fs.readFileSync(path.join(DIR, 'install.sh'), 'utf8')).toContain(
      `\nRELEASE_KEYS="${key.id.toString('hex')}:${spkiBase64(key)}"\n`,
    );
  });

  it.each(Object.keys(linux))('%s runs without Node.js and decrypts the test vectors', (name) => {
    const [cmd, ...prefix] = linux[name]!(path.join(DIR, name));
    const run = (...args: string[]) =>
      spawnSync(cmd!, [...prefix, ...args], { env: BARE_ENV, encoding: 'utf8', timeout: 120_000 });
    const arch = name.endsWith('arm64') ? 'arm64' : 'x64';
    expect(run('--version').stdout.trim()).toBe(
      `coffer-agent ${VERSION} (linux-${arch}, Node.js v24.21.0, single executable)`,
    );
    for (const v of vectors.valid) {
      const file = path.join(work, `${name}-${v.name}.coffer`);
      const key = path.join(work, `${name}-${v.name}.key`);
      fs.writeFileSync(file, Buffer.from(v.file, 'hex'));
      fs.writeFileSync(key, keyText(v.masterKey));
      const r = run('decrypt', file, '-o', `${file}.out`, '--key-file', key);
      expect({ vector: v.name, code: r.status, stderr: r.status ? r.stderr : '' }).toEqual({
        vector: v.name,
        code: 0,
        stderr: '',
      });
      expect(fs.readFileSync(`${file}.out`).toString('hex')).toBe(v.plaintext);
    }
    for (const v of vectors.invalid.slice(0, 4)) {
      const file = path.join(work, `${name}-${v.name}.coffer`);
      const key = path.join(work, `${name}-${v.name}.key`);
      fs.writeFileSync(file, Buffer.from(v.file, 'hex'));
      fs.writeFileSync(key, keyText(v.masterKey));
      const r = run('decrypt', file, '-o', `${file}.out`, '--key-file', key);
      expect({ vector: v.name, code: r.status }).toEqual({ vector: v.name, code: 1 });
      expect(r.stderr).toMatch(/^coffer-agent: /);
      expect(fs.existsSync(`${file}.out`)).toBe(false);
    }
  });

  it('carry mongodump and mongorestore for each platform, built from the pinned version', () => {
    const versions = fs.readFileSync(path.join(REPO, 'deploy/local/versions.sh'), 'utf8');
    const pinned = /^MONGO_TOOLS_VERSION=(\S+)$/m.exec(versions)![1]!;
    const release = JSON.parse(fs.readFileSync(path.join(DIR, 'release.json'), 'utf8'));
    expect(release.databaseTools).toBe(pinned);
    for (const tool of ['mongodump', 'mongorestore']) {
      for (const [target, start] of [
        ['linux-x64', (bin: string) => [bin]],
        ['linux-arm64', (bin: string) => ['qemu-aarch64-static', bin]], // static: no sysroot needed
      ] as const) {
        const file = path.join(DIR, `${tool}-${target}`);
        expect(release.files[target].tools[tool]).toMatchObject({
          name: `${tool}-${target}`,
          sha256: sha256(fs.readFileSync(file)),
          compressed: { name: `${tool}-${target}.zst` },
        });
        const [cmd, ...args] = start(file);
        const r = spawnSync(cmd!, [...args, '--version'], { env: BARE_ENV, encoding: 'utf8' });
        expect({ tool, target, first: r.stdout.split('\n')[0] }).toEqual({
          tool,
          target,
          first: `${tool} version: ${pinned}`,
        });
      }
      const exe = fs.readFileSync(path.join(DIR, `${tool}-windows-x64.exe`));
      const pe = exe.readUInt32LE(0x3c);
      expect(exe.subarray(pe, pe + 4).toString('latin1')).toBe('PE\0\0');
      expect(exe.readUInt16LE(pe + 4)).toBe(0x8664);
      // install.ps1 pins its hash (it cannot check the signature).
      expect(fs.readFileSync(path.join(DIR, 'install.ps1'), 'utf8')).toContain(
        `'${tool}-windows-x64.exe' = '${sha256(exe)}'`,
      );
    }
  });

  it('the Windows exe is an x64 PE image that carries the agent with the single-executable fuse set', () => {
    const exe = fs.readFileSync(path.join(DIR, 'coffer-agent-windows-x64.exe'));
    expect(exe.subarray(0, 2).toString('latin1')).toBe('MZ');
    const pe = exe.readUInt32LE(0x3c);
    expect(exe.subarray(pe, pe + 4).toString('latin1')).toBe('PE\0\0');
    expect(exe.readUInt16LE(pe + 4)).toBe(0x8664); // IMAGE_FILE_MACHINE_AMD64
    const fuse = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
    expect(exe.includes(`${fuse}:1`)).toBe(true);
    expect(exe.includes(`${fuse}:0`)).toBe(false);
    // The injected script (esbuild writes non-ASCII as escapes), its version fixed in at build time.
    expect(exe.includes('coffer-agent \\u2014 the Coffer backup agent')).toBe(true);
    expect(exe.includes(`"${VERSION}"`)).toBe(true);
    // The service wrapper is WinSW (a .NET exe).
    const wrapper = fs.readFileSync(path.join(DIR, 'coffer-agent-service.exe'));
    expect(wrapper.subarray(0, 2).toString('latin1')).toBe('MZ');
    expect(wrapper.includes('winsw')).toBe(true);
  });
});
