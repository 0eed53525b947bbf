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
import { generateKeyPair, keyIdText, signMessage, type SecretKey } from './minisign.js';
import {
  applyRequest,
  checkForUpdate,
  clearOutcome,
  installRelease,
  readOutcome,
  replaceExecutable,
  REQUEST_FILE,
  RESULT_FILE,
  writeOutcome,
  writeRequest,
} from './updater.js';

/** The release key these tests sign with, the one taking over from it, and one nobody trusts. */
const KEY = generateKeyPair().key;
const NEXT = generateKeyPair().key;
const STRANGER = generateKeyPair().key;

const NAME = 'coffer-agent-linux-x64';
const OLD = Buffer.from('#!/bin/sh\necho old agent\n');

/** What the fake server answers: path → body; anything else is a 404. */
let served: Map<string, Buffer>;
/** What the release's publisher made (name → bytes): what SHA256SUMS lists and the key signs. */
let genuine: Map<string, Buffer>;
let requested: string[];
/** The release of the gateway that answers the versioned paths, when not the one release.json names. */
let otherGateway: string | undefined;
let server: http.Server;
let base: string;
let dir: string;
let target: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requested.push(req.url ?? '');
    // As the gateway does: /downloads/VERSION/NAME only for the release it serves.
    const versioned = (req.url ?? '').match(/^\/downloads\/([^/]+)\/([^/]+)$/);
    const release = served.get('/downloads/release.json');
    const own = otherGateway ?? (release && JSON.parse(release.toString()).version);
    const body = versioned
      ? versioned[1] === own
        ? served.get(`/downloads/${versioned[2]}`)
        : undefined
      : served.get(req.url ?? '');
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
  genuine = new Map();
  requested = [];
  otherGateway = undefined;
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

/** Puts a file of the release on the server as its publisher made it. */
function offer(name: string, data: Buffer) {
  genuine.set(name, data);
  served.set(`/downloads/${name}`, data);
}

/**
 * SHA256SUMS of the genuine files (release.json among them) and, unless `signer` is null, its
 * signature, as build-binaries.mjs and release-keys.mjs write them.
 */
function seal(signer: SecretKey | null = KEY) {
  const sums = Buffer.from(
    [...genuine]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, data]) => `${info(name, data).sha256}  ${name}\n`)
      .join(''),
  );
  served.set('/downloads/SHA256SUMS', sums);
  if (signer)
    served.set('/downloads/SHA256SUMS.minisig', Buffer.from(signMessage(sums, signer, 'file:SHA256SUMS')));
  else served.delete('/downloads/SHA256SUMS.minisig');
  return sums;
}

/**
 * Publishes `binary` as `version` for linux-x64 the way build-binaries.mjs does: the plain file
 * and, unless `compressed` is false, its zstd copy, release.json, SHA256SUMS and its signature.
 * `wire` replaces the .zst bytes actually served (a corrupted download); `zstOf` compresses
 * different content than the announced binary; `signer` signs (null: unsigned).
 */
function publish(
  version: string,
  binary: Buffer,
  opts: {
    compressed?: boolean;
    wire?: (zst: Buffer) => Buffer;
    zstOf?: Buffer;
    platform?: string;
    signer?: SecretKey | null;
  } = {},
) {
  const zst = zlib.zstdCompressSync(opts.zstOf ?? binary);
  const entry = {
    ...info(NAME, binary),
    ...(opts.compressed === false ? {} : { compressed: info(`${NAME}.zst`, zst) }),
  };
  offer(
    'release.json',
    Buffer.from(
      JSON.stringify(
        { version, node: 'v24.21.0', files: { [opts.platform ?? 'linux-x64']: entry } },
        null,
        2,
      ),
    ),
  );
  offer(NAME, binary);
  if (opts.compressed !== false) {
    offer(`${NAME}.zst`, zst);
    if (opts.wire) served.set(`/downloads/${NAME}.zst`, opts.wire(zst));
  }
  seal(opts.signer);
}

const deps = () => ({
  server: base,
  currentVersion: '0.2.0',
  target,
  platform: 'linux-x64',
  trustedKeys: [KEY.public],
});
/** What an update fetches before the binary: release.json, then the release's own signed list. */
const signedFiles = (version: string) => [
  '/downloads/release.json',
  `/downloads/${version}/SHA256SUMS`,
  `/downloads/${version}/SHA256SUMS.minisig`,
];

function expectUntouched() {
  expect(readFileSync(target).equals(OLD)).toBe(true);
  expect(readdirSync(dir)).toEqual(['coffer-agent']); // no .new or .download left behind
}

describe('installRelease', () => {
  /**
   * 0.2.0 became 0.3.0 from the file at `downloaded`: the binary swapped in, executable by others
   * (the root-run ExecStartPre installs it for the service user), nothing else left in the folder.
   */
  async function expectInstalled(binary: Buffer, downloaded: string) {
    expect(await installRelease(deps())).toEqual({
      status: 'updated',
      fromVersion: '0.2.0',
      toVersion: '0.3.0',
    });
    expect(readFileSync(target).equals(binary)).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o755);
    expect(readdirSync(dir)).toEqual(['coffer-agent']);
    expect(requested).toEqual([...signedFiles('0.3.0'), downloaded]);
  }

  it('downloads the zstd copy, verifies it and swaps the new binary in (0755), leaving nothing else', async () => {
    const binary = randomBytes(300_000);
    publish('0.3.0', binary);
    await expectInstalled(binary, `/downloads/0.3.0/${NAME}.zst`);
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
    await expectInstalled(binary, `/downloads/0.3.0/${NAME}`);
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
    offer('release.json', Buffer.from(JSON.stringify(release)));
    offer(`${NAME}.zst`, notZstd);
    seal(); // a genuine, signed release whose .zst is broken
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

  it('fails, to try again, when another gateway answers for the release (a rolling update)', async () => {
    publish('0.3.0', randomBytes(1000));
    otherGateway = '0.2.9';
    const outcome = await installRelease(deps());
    expect(outcome.error).toBe(
      'the server that answered has no release 0.3.0 (its SHA256SUMS: HTTP 404); while Coffer is being updated ' +
        'its servers may offer different releases: try again in a minute',
    );
    expect(requested).toEqual(['/downloads/release.json', '/downloads/0.3.0/SHA256SUMS']);
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

describe('the release signature', () => {
  /** A refusal: failed with `reason`, the old binary in place, no binary downloaded. */
  async function expectRefused(d: Parameters<typeof installRelease>[0], reason: string | RegExp) {
    const outcome = await installRelease(d);
    expect(outcome).toMatchObject({ status: 'failed', fromVersion: '0.2.0', toVersion: '0.2.0' });
    expect(outcome.error).toMatch(reason);
    expect(outcome.error).toMatch(/^the release 0\.3\.0 is refused: .*; this version keeps running$/);
    expectUntouched();
    expect(requested.filter((r) => r.includes(NAME))).toEqual([]);
  }

  it('refuses an unsigned release (no SHA256SUMS.minisig)', async () => {
    publish('0.3.0', randomBytes(1000), { signer: null });
    await expectRefused(deps(), 'it is not signed (the server has no SHA256SUMS.minisig)');
  });

  it('refuses a release signed by a key the agent does not trust', async () => {
    publish('0.3.0', randomBytes(1000), { signer: STRANGER });
    await expectRefused(
      deps(),
      `SHA256SUMS is signed by the key ${keyIdText(STRANGER.id)}, which this agent does not trust (it trusts ${keyIdText(KEY.id)})`,
    );
  });

  it('refuses a valid signature over different bytes: a binary swapped in with a SHA256SUMS to match', async () => {
    const genuineBinary = randomBytes(2000);
    publish('0.3.0', genuineBinary);
    const signature = served.get('/downloads/SHA256SUMS.minisig')!;
    // The attacker's release: its own binary, release.json and SHA256SUMS, the genuine signature.
    publish('0.3.0', randomBytes(2000), { signer: null });
    served.set('/downloads/SHA256SUMS.minisig', signature);
    await expectRefused(
      deps(),
      `the signature of SHA256SUMS does not verify with the release key ${keyIdText(KEY.id)}: the file was changed after it was signed`,
    );
  });

  it('refuses a release.json that is not the one the signed SHA256SUMS lists', async () => {
    publish('0.3.0', randomBytes(1000));
    const sums = served.get('/downloads/SHA256SUMS')!;
    const signature = served.get('/downloads/SHA256SUMS.minisig')!;
    publish('0.3.0', randomBytes(1000), { compressed: false }); // another binary, announced
    served.set('/downloads/SHA256SUMS', sums);
    served.set('/downloads/SHA256SUMS.minisig', signature);
    await expectRefused(deps(), 'release.json does not match its SHA-256 in the signed SHA256SUMS');
  });

  it('refuses everything when the agent was built without a release key', async () => {
    publish('0.3.0', randomBytes(1000));
    await expectRefused({ ...deps(), trustedKeys: [] }, /built without a release key/);
  });

  it('checkForUpdate does not announce a release whose signature fails (no restart for it)', async () => {
    publish('0.3.0', randomBytes(1000), { signer: STRANGER });
    const check = await checkForUpdate(deps());
    expect(check.status).toBe('failed');
    expect(check.available).toBeUndefined();
    expect(check.error).toMatch(/which this agent does not trust/);
    publish('0.3.0', randomBytes(1000));
    expect(await checkForUpdate(deps())).toMatchObject({
      status: 'updated',
      available: true,
      toVersion: '0.3.0',
    });
  });

  describe('key rotation: two trusted keys', () => {
    const rotating = () => ({ ...deps(), trustedKeys: [KEY.public, NEXT.public] });

    it.each([
      ['the current key', KEY],
      ['the next key', NEXT],
    ])('installs a release signed with %s', async (_, signer) => {
      const binary = randomBytes(3000);
      publish('0.3.0', binary, { signer });
      expect(await installRelease(rotating())).toEqual({
        status: 'updated',
        fromVersion: '0.2.0',
        toVersion: '0.3.0',
      });
      expect(readFileSync(target).equals(binary)).toBe(true);
    });

    it('refuses one signed with a third key, naming both it trusts', async () => {
      publish('0.3.0', randomBytes(1000), { signer: STRANGER });
      await expectRefused(rotating(), `(it trusts ${keyIdText(KEY.id)}, ${keyIdText(NEXT.id)})`);
    });

    it('an agent that trusts only the next key refuses a release signed with the retired one', async () => {
      publish('0.3.0', randomBytes(1000), { signer: KEY });
      await expectRefused({ ...deps(), trustedKeys: [NEXT.public] }, /which this agent does not trust/);
    });
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

  const request = (o: { updatesAllowed?: boolean } = {}) =>
    applyRequest({ ...deps(), stateDir: state, updatesAllowed: o.updatesAllowed ?? true });

  it('applyRequest does nothing without a request, not even ask the server', async () => {
    publish('0.3.0', randomBytes(1000));
    expect(await request()).toBeUndefined();
    expect(requested).toEqual([]);
    expect(await readOutcome(state)).toBeUndefined();
    expectUntouched();
  });

  it('applyRequest installs a requested update, leaves the outcome and removes the request', async () => {
    const binary = randomBytes(5000);
    publish('0.3.0', binary);
    await writeRequest(state, '0.2.0');
    expect(existsSync(path.join(state, REQUEST_FILE))).toBe(true);
    const outcome = await request();
    expect(outcome).toEqual({ status: 'updated', fromVersion: '0.2.0', toVersion: '0.3.0' });
    expect(readFileSync(target).equals(binary)).toBe(true);
    expect(await readOutcome(state)).toEqual(outcome);
    expect(readdirSync(state)).toEqual([RESULT_FILE]);
    // a second start finds no request and leaves the outcome for the daemon
    expect(await request()).toBeUndefined();
    expect(await readOutcome(state)).toEqual(outcome);
  });

  it('applyRequest records a failure too, so the daemon can report it', async () => {
    await writeRequest(state, '0.2.0');
    const outcome = await request();
    expect(outcome?.status).toBe('failed');
    expect(await readOutcome(state)).toEqual(outcome);
    expect(existsSync(path.join(state, REQUEST_FILE))).toBe(false);
    expectUntouched();
  });

  it('applyRequest refuses a request once updates are turned off on the host, and asks the server nothing', async () => {
    publish('0.3.0', randomBytes(1000));
    await writeRequest(state, '0.2.0');
    const outcome = await request({ updatesAllowed: false });
    expect(outcome).toEqual({
      status: 'failed',
      fromVersion: '0.2.0',
      toVersion: '0.2.0',
      error:
        'updates are turned off on this host (`coffer-agent config updates on` turns them on again); this version keeps running',
    });
    expect(await readOutcome(state)).toEqual(outcome);
    expect(existsSync(path.join(state, REQUEST_FILE))).toBe(false);
    expect(requested).toEqual([]);
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
