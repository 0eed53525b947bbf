import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import {
  applyRequest,
  clearOutcome,
  installRelease,
  readOutcome,
  replaceExecutable,
  REQUEST_FILE,
  RESULT_FILE,
  writeOutcome,
  writeRequest,
} from './updater.js';

const NAME = 'coffer-agent-linux-x64';
const OLD = Buffer.from('#!/bin/sh\necho old agent\n');

/** What the fake server answers: path → body; anything else is a 404. */
let served: Map<string, Buffer>;
let requested: string[];
let server: http.Server;
let base: string;
let dir: string;
let target: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requested.push(req.url ?? '');
    const body = served.get(req.url ?? '');
    if (!body) {
      res.statusCode = 404;
      res.end('not found');
      return;
    }
    res.setHeader('content-length', body.length);
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  served = new Map();
  requested = [];
  dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-update-'));
  target = path.join(dir, 'coffer-agent');
  writeFileSync(target, OLD);
  chmodSync(target, 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// release.json's file entries, as scripts/build-binaries.mjs writes them.
const info = (name: string, data: Buffer) => ({
  name,
  sha256: createHash('sha256').update(data).digest('hex'),
  size: data.length,
});

/**
 * Publishes `binary` as `version` for linux-x64 the way build-binaries.mjs does: the plain file
 * and, unless `compressed` is false, its zstd copy. `wire` replaces the .zst bytes actually served
 * (a corrupted download); `zstOf` compresses different content than the announced binary.
 */
function publish(
  version: string,
  binary: Buffer,
  opts: { compressed?: boolean; wire?: (zst: Buffer) => Buffer; zstOf?: Buffer; platform?: string } = {},
) {
  const zst = zlib.zstdCompressSync(opts.zstOf ?? binary);
  const entry = {
    ...info(NAME, binary),
    ...(opts.compressed === false ? {} : { compressed: info(`${NAME}.zst`, zst) }),
  };
  served.set(
    '/downloads/release.json',
    Buffer.from(
      JSON.stringify(
        { version, node: 'v24.21.0', files: { [opts.platform ?? 'linux-x64']: entry } },
        null,
        2,
      ),
    ),
  );
  served.set(`/downloads/${NAME}`, binary);
  if (opts.compressed !== false) served.set(`/downloads/${NAME}.zst`, opts.wire ? opts.wire(zst) : zst);
}

const deps = () => ({ server: base, currentVersion: '0.2.0', target, platform: 'linux-x64' });

function expectUntouched() {
  expect(readFileSync(target).equals(OLD)).toBe(true);
  expect(readdirSync(dir)).toEqual(['coffer-agent']); // no .new or .download left behind
}

describe('installRelease', () => {
  it('downloads the zstd copy, verifies it and swaps the new binary in (0755), leaving nothing else', async () => {
    const binary = randomBytes(300_000);
    publish('0.3.0', binary);
    expect(await installRelease(deps())).toEqual({
      status: 'updated',
      fromVersion: '0.2.0',
      toVersion: '0.3.0',
    });
    expect(readFileSync(target).equals(binary)).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o755);
    expect(readdirSync(dir)).toEqual(['coffer-agent']);
    expect(requested).toEqual(['/downloads/release.json', `/downloads/${NAME}.zst`]);
  });

  it('compares versions numerically (0.10.0 is newer than 0.9.0)', async () => {
    const binary = randomBytes(1000);
    publish('0.10.0', binary);
    expect(await installRelease({ ...deps(), currentVersion: '0.9.0' })).toMatchObject({
      status: 'updated',
      toVersion: '0.10.0',
    });
    expect(readFileSync(target).equals(binary)).toBe(true);
  });

  it.each(['0.2.0', '0.1.9', '0.2.0-rc.1'])(
    "is 'current' and downloads nothing when the server offers %s to a 0.2.0",
    async (offered) => {
      publish(offered, randomBytes(1000));
      expect(await installRelease(deps())).toEqual({
        status: 'current',
        fromVersion: '0.2.0',
        toVersion: '0.2.0',
      });
      expectUntouched();
      expect(requested).toEqual(['/downloads/release.json']);
    },
  );

  it('refuses a corrupted compressed download and keeps the running version', async () => {
    publish('0.3.0', randomBytes(50_000), {
      wire: (zst) => {
        const bad = Buffer.from(zst);
        bad[bad.length >> 1]! ^= 0xff; // same size, one byte flipped
        return bad;
      },
    });
    const outcome = await installRelease(deps());
    expect(outcome).toMatchObject({ status: 'failed', fromVersion: '0.2.0', toVersion: '0.2.0' });
    expect(outcome.error).toMatch(new RegExp(`^${NAME}\\.zst does not match its SHA-256`));
    expect(outcome.error).toMatch(/this version keeps running/);
    expectUntouched();
  });

  it('installs a release without a compressed copy from the plain file, executable (0755)', async () => {
    const binary = randomBytes(70_000);
    publish('0.3.0', binary, { compressed: false });
    expect(await installRelease(deps())).toEqual({
      status: 'updated',
      fromVersion: '0.2.0',
      toVersion: '0.3.0',
    });
    expect(readFileSync(target).equals(binary)).toBe(true);
    // The root-run ExecStartPre installs it for the service user: it must be executable by others.
    expect(statSync(target).mode & 0o777).toBe(0o755);
    expect(readdirSync(dir)).toEqual(['coffer-agent']);
    expect(requested).toEqual(['/downloads/release.json', `/downloads/${NAME}`]);
  });

  it.each([true, false])(
    'installs an executable the service user can run even under umask 077 (compressed: %s)',
    async (compressed) => {
      const binary = randomBytes(10_000);
      publish('0.3.0', binary, { compressed });
      const before = process.umask(0o077);
      try {
        expect((await installRelease(deps())).status).toBe('updated');
      } finally {
        process.umask(before);
      }
      expect(statSync(target).mode & 0o777).toBe(0o755);
    },
  );

  it('refuses a corrupted plain download', async () => {
    const binary = randomBytes(20_000);
    publish('0.3.0', binary, { compressed: false });
    served.set(`/downloads/${NAME}`, randomBytes(20_000));
    const outcome = await installRelease(deps());
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(new RegExp(`^${NAME} does not match its SHA-256`));
    expectUntouched();
  });

  it('refuses a genuine compressed copy whose content is not the announced binary', async () => {
    publish('0.3.0', randomBytes(40_000), { zstOf: randomBytes(40_000) });
    const outcome = await installRelease(deps());
    expect(outcome.status).toBe('failed');
    // The .zst itself matched; what it unpacked to did not: the plain name is the one named.
    expect(outcome.error).toMatch(new RegExp(`^${NAME} does not match its SHA-256`));
    expectUntouched();
  });

  it('refuses a compressed copy that is not zstd at all', async () => {
    const binary = randomBytes(10_000);
    publish('0.3.0', binary);
    const notZstd = randomBytes(5000);
    const release = JSON.parse(served.get('/downloads/release.json')!.toString()) as {
      files: Record<string, { compressed: unknown }>;
    };
    release.files['linux-x64']!.compressed = info(`${NAME}.zst`, notZstd);
    served.set('/downloads/release.json', Buffer.from(JSON.stringify(release)));
    served.set(`/downloads/${NAME}.zst`, notZstd);
    const outcome = await installRelease(deps());
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(new RegExp(`^${NAME}\\.zst could not be decompressed`));
    expectUntouched();
  });

  it('fails when the server offers nothing for this platform', async () => {
    publish('0.3.0', randomBytes(1000), { platform: 'windows-x64' });
    const outcome = await installRelease(deps());
    expect(outcome).toMatchObject({ status: 'failed', fromVersion: '0.2.0', toVersion: '0.2.0' });
    expect(outcome.error).toBe('the server offers no agent for linux-x64');
    expectUntouched();
  });

  it('fails with a readable reason when the server has no release.json (404)', async () => {
    const outcome = await installRelease(deps());
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toBe(
      `the server has no agent release to offer (HTTP 404 for ${base}/downloads/release.json)`,
    );
    expectUntouched();
  });

  it('fails when the announced file is missing on the server', async () => {
    publish('0.3.0', randomBytes(1000));
    served.delete(`/downloads/${NAME}.zst`);
    const outcome = await installRelease(deps());
    expect(outcome.error).toBe(`cannot download ${NAME}.zst (HTTP 404)`);
    expectUntouched();
  });

  it('fails on a release.json that does not describe a release', async () => {
    served.set('/downloads/release.json', Buffer.from(JSON.stringify({ version: '9.9.9', files: 'none' })));
    expect((await installRelease(deps())).error).toBe('the server sent an unreadable release description');
    expectUntouched();
  });

  it('fails with a readable reason when the server cannot be reached', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const outcome = await installRelease({ ...deps(), server: `http://127.0.0.1:${port}` });
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(
      new RegExp(`^cannot reach http://127\\.0\\.0\\.1:${port} for the release information \\(.+\\)$`),
    );
    expectUntouched();
  });
});

describe('replaceExecutable', () => {
  it('on Windows moves the running exe to .old and puts the new one in its place', async () => {
    const fresh = path.join(dir, '.new');
    writeFileSync(fresh, 'new');
    writeFileSync(`${target}.old`, 'from an update before'); // replaced, not in the way
    await replaceExecutable(fresh, target, 'win32');
    expect(readFileSync(target, 'utf8')).toBe('new');
    expect(readFileSync(`${target}.old`).equals(OLD)).toBe(true);
    expect(existsSync(fresh)).toBe(false);
  });

  it('on Windows puts the old exe back when the new one cannot be moved in', async () => {
    await expect(replaceExecutable(path.join(dir, 'missing'), target, 'win32')).rejects.toThrow(/ENOENT/);
    expectUntouched();
  });

  it('elsewhere renames over the target', async () => {
    const fresh = path.join(dir, '.new');
    writeFileSync(fresh, 'new');
    await replaceExecutable(fresh, target, 'linux');
    expect(readFileSync(target, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['coffer-agent']);
  });
});

describe('update request and outcome (the hardened service)', () => {
  let state: string;
  beforeEach(() => (state = mkdtempSync(path.join(os.tmpdir(), 'coffer-update-state-'))));
  afterEach(() => rmSync(state, { recursive: true, force: true }));

  it('applyRequest does nothing without a request, not even ask the server', async () => {
    publish('0.3.0', randomBytes(1000));
    expect(await applyRequest({ ...deps(), stateDir: state })).toBeUndefined();
    expect(requested).toEqual([]);
    expect(await readOutcome(state)).toBeUndefined();
    expectUntouched();
  });

  it('applyRequest installs a requested update, leaves the outcome and removes the request', async () => {
    const binary = randomBytes(5000);
    publish('0.3.0', binary);
    await writeRequest(state, '0.2.0');
    expect(existsSync(path.join(state, REQUEST_FILE))).toBe(true);
    const outcome = await applyRequest({ ...deps(), stateDir: state });
    expect(outcome).toEqual({ status: 'updated', fromVersion: '0.2.0', toVersion: '0.3.0' });
    expect(readFileSync(target).equals(binary)).toBe(true);
    expect(await readOutcome(state)).toEqual(outcome);
    expect(readdirSync(state)).toEqual([RESULT_FILE]);
    // a second start finds no request and leaves the outcome for the daemon
    expect(await applyRequest({ ...deps(), stateDir: state })).toBeUndefined();
    expect(await readOutcome(state)).toEqual(outcome);
  });

  it('applyRequest records a failure too, so the daemon can report it', async () => {
    await writeRequest(state, '0.2.0');
    const outcome = await applyRequest({ ...deps(), stateDir: state });
    expect(outcome?.status).toBe('failed');
    expect(await readOutcome(state)).toEqual(outcome);
    expect(existsSync(path.join(state, REQUEST_FILE))).toBe(false);
    expectUntouched();
  });

  it('clearOutcome removes the outcome; readOutcome ignores a missing or foreign file', async () => {
    await writeOutcome(state, { status: 'current', fromVersion: '0.2.0', toVersion: '0.2.0' });
    expect(await readOutcome(state)).toEqual({ status: 'current', fromVersion: '0.2.0', toVersion: '0.2.0' });
    await clearOutcome(state);
    expect(await readOutcome(state)).toBeUndefined();
    expect(readdirSync(state)).toEqual([]);
    await clearOutcome(state); // nothing to remove is fine
    writeFileSync(path.join(state, RESULT_FILE), JSON.stringify({ status: 'bogus' }));
    expect(await readOutcome(state)).toBeUndefined();
  });
});
