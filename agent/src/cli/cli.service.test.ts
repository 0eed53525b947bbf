import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import zlib from 'node:zlib';
import { encryptPayload } from '../crypto/encrypt.js';
import { Compression, fingerprintHex } from '../crypto/format.js';
import { generateMasterKey, keyFileText, parseKeyFile } from '../crypto/key.js';
import { encodeRecord, sha256Hex } from '../crypto/record.js';
import { writeStatus } from '../status.js';
import { startFerretDB, type FerretDB } from '../testing/ferretdb.js';
import { main } from './main.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;
let config: string;

async function run(args: string[], stdin = '', env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let o = '';
  let e = '';
  stdout.on('data', (b: Buffer) => (o += b.toString()));
  stderr.on('data', (b: Buffer) => (e += b.toString()));
  const code = await main(args, {
    stdin: Readable.from([stdin]),
    stdout,
    stderr,
    env: { HOME: dir, ...env },
  });
  return { code, stdout: o, stderr: e };
}

const withConfig = (...args: string[]) => [...args, '--config', config];

function cfg(): {
  masterKey: string;
  databases: Array<{ name: string; uri: string; db: string }>;
  server?: string;
  apiKey?: string;
  name: string;
} {
  return JSON.parse(readFileSync(config, 'utf8'));
}

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-cli-'));
  config = path.join(dir, 'conf', 'agent.json');
});
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

describe('coffer-agent init', () => {
  it('on a configured agent, keeps the server and API key that are not given (the installer renames this way)', async () => {
    await run(withConfig('init', '--server', 'https://a.example', '--api-key', 'ak_keep', '--name', 'one'));
    const r = await run(withConfig('init', '--name', 'two'));
    expect(r.code).toBe(0);
    expect(cfg()).toMatchObject({ server: 'https://a.example', apiKey: 'ak_keep', name: 'two' });
  });

  it('creates a 0600 config in a 0700 directory with a new key, and says to keep a copy', async () => {
    const r = await run(
      withConfig('init', '--server', 'https://coffer.example.com/', '--api-key', 'ak_1', '--name', 'box'),
    );
    expect(r.code).toBe(0);
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(config)).mode & 0o777).toBe(0o700);
    const c = cfg();
    expect(c).toMatchObject({
      server: 'https://coffer.example.com',
      apiKey: 'ak_1',
      name: 'box',
      databases: [],
    });
    const fp = fingerprintHex(parseKeyFile(c.masterKey));
    expect(r.stdout).toContain(`Master key fingerprint: ${fp}`);
    expect(r.stdout).toContain('coffer-agent key export');
    expect(r.stdout).toMatch(/Without it no backup can be decrypted/);
    expect(r.stdout).not.toContain(c.masterKey);
  });

  it('takes the API key from COFFER_API_KEY, so the installer keeps it off the command line', async () => {
    const r = await run(withConfig('init', '--server', 'https://a.example'), '', {
      COFFER_API_KEY: 'ak_env',
    });
    expect(r.code).toBe(0);
    expect(cfg()).toMatchObject({ apiKey: 'ak_env' });
  });

  it('takes the API key from a file or from standard input (--api-key-file)', async () => {
    const file = path.join(dir, 'api-key');
    writeFileSync(file, '\n  ak_file  \n', { mode: 0o600 });
    expect(
      (await run(withConfig('init', '--server', 'https://a.example', '--api-key-file', file))).code,
    ).toBe(0);
    expect(cfg()).toMatchObject({ apiKey: 'ak_file' });
    const piped = await run(withConfig('init', '--api-key-file', '-'), 'ak_stdin\n');
    expect(piped.code).toBe(0);
    expect(cfg()).toMatchObject({ apiKey: 'ak_stdin', server: 'https://a.example' });
    const empty = await run(withConfig('init', '--api-key-file', '-'), '\n');
    expect(empty).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/standard input holds no API key/),
    });
    const missing = await run(withConfig('init', '--api-key-file', path.join(dir, 'nope')));
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/cannot read the API key from/) });
  });

  it('asks for the API key in a terminal, and says where it may come from otherwise', async () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let e = '';
    stderr.on('data', (b: Buffer) => (e += b.toString()));
    const tty = Object.assign(Readable.from(['ak_typed\n']), { isTTY: true });
    const code = await main(withConfig('init', '--server', 'https://a.example'), {
      stdin: tty,
      stdout,
      stderr,
      env: { HOME: dir },
    });
    expect(code).toBe(0);
    expect(e).toMatch(/^API key \(Settings → Security on the dashboard\): /);
    expect(cfg()).toMatchObject({ apiKey: 'ak_typed' });

    rmSync(config);
    const none = await run(withConfig('init', '--server', 'https://a.example'));
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/set COFFER_API_KEY or pass --api-key-file FILE/);
  });

  it('keeps the key when run again, and replaces it only with --force', async () => {
    await run(withConfig('init', '--server', 'https://a.example', '--api-key', 'k1'));
    const first = cfg().masterKey;
    const again = await run(withConfig('init', '--server', 'https://b.example', '--api-key', 'k2'));
    expect(again.code).toBe(0);
    expect(cfg()).toMatchObject({ masterKey: first, server: 'https://b.example', apiKey: 'k2' });
    expect(again.stdout).toMatch(/Kept the existing master key/);
    const forced = await run(
      withConfig('init', '--server', 'https://b.example', '--api-key', 'k2', '--force'),
    );
    expect(forced.code).toBe(0);
    expect(cfg().masterKey).not.toBe(first);
    expect(forced.stderr).toContain(`Replaced master key ${fingerprintHex(parseKeyFile(first))}`);
  });

  it('keeps the name when run again without --name (a new API key only)', async () => {
    await run(withConfig('init', '--server', 'https://a.example', '--api-key', 'k1', '--name', 'box'));
    expect((await run(withConfig('init', '--server', 'https://a.example', '--api-key', 'k2'))).code).toBe(0);
    expect(cfg()).toMatchObject({ name: 'box', apiKey: 'k2' });
  });

  it('refuses to touch an unreadable config, and rejects bad options in one line', async () => {
    await run(withConfig('init', '--server', 'https://a.example', '--api-key', 'k1'));
    writeFileSync(config, '{ broken');
    const r = await run(withConfig('init', '--server', 'https://a.example', '--api-key', 'k1', '--force'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^coffer-agent: The agent config .* is not valid JSON.*move it away first\.\n$/);
    expect(readFileSync(config, 'utf8')).toBe('{ broken');

    for (const args of [
      ['init', '--api-key', 'k'],
      ['init', '--server', 'ftp://x', '--api-key', 'k'],
      ['init', '--server', 'https://x', '--api-key', 'k', '--bogus'],
    ]) {
      const bad = await run(withConfig(...args));
      expect(bad.code).toBeGreaterThan(0);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      expect(bad.stderr).not.toMatch(/\s+at /);
    }
  });

  it('writes --state-dir (absolute) into the config and keeps it when run again without it', async () => {
    const state = path.join(dir, 'state');
    const r = await run(
      withConfig('init', '--server', 'https://a.example', '--api-key', 'k', '--state-dir', state),
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toMatchObject({ stateDir: state });
    const again = await run(withConfig('init', '--server', 'https://b.example', '--api-key', 'k'));
    expect(again.code).toBe(0);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toMatchObject({
      stateDir: state,
      server: 'https://b.example',
    });
    const relative = await run(
      withConfig('init', '--server', 'https://a.example', '--api-key', 'k', '--state-dir', 'rel/st'),
    );
    expect(relative.code).toBe(0);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toMatchObject({ stateDir: path.resolve('rel/st') });
  });

  it('uses COFFER_AGENT_CONFIG, then XDG_CONFIG_HOME', async () => {
    const viaEnv = path.join(dir, 'env', 'agent.json');
    expect(
      (
        await run(['init', '--server', 'https://a.example', '--api-key', 'k'], '', {
          COFFER_AGENT_CONFIG: viaEnv,
        })
      ).code,
    ).toBe(0);
    expect(existsSync(viaEnv)).toBe(true);
    expect(
      (
        await run(['init', '--server', 'https://a.example', '--api-key', 'k'], '', {
          XDG_CONFIG_HOME: path.join(dir, 'xdg'),
        })
      ).code,
    ).toBe(0);
    expect(existsSync(path.join(dir, 'xdg', 'coffer', 'agent.json'))).toBe(true);
  });
});

describe('coffer-agent key', () => {
  beforeEach(async () => {
    await run(withConfig('init', '--server', 'https://a.example', '--api-key', 'k'));
  });

  it('exports to stdout and to a 0600 file that import accepts', async () => {
    const printed = await run(withConfig('key', 'export'));
    expect(printed.code).toBe(0);
    const key = parseKeyFile(printed.stdout);
    expect(printed.stdout).toContain(`# fingerprint: ${fingerprintHex(key)}`);
    const file = path.join(dir, 'master.key');
    expect((await run(withConfig('key', 'export', '--out', file))).code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(printed.stdout);
    const again = await run(withConfig('key', 'export', '--out', file));
    expect(again).toMatchObject({ code: 1, stderr: expect.stringMatching(/already exists/) });

    const fp = await run(withConfig('key', 'fingerprint'));
    expect(fp.stdout.trim()).toBe(fingerprintHex(key));
  });

  it('imports from a file or stdin; a different key needs --force', async () => {
    const other = generateMasterKey();
    const file = path.join(dir, 'other.key');
    writeFileSync(file, keyFileText(other));
    const refused = await run(withConfig('key', 'import', file));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already has a different master key .*--force/);
    const forced = await run(withConfig('key', 'import', '-', '--force'), keyFileText(other));
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain(fingerprintHex(other));
    expect(parseKeyFile(cfg().masterKey).equals(other)).toBe(true);
  });

  it('creates a key-only config on a fresh machine (offline decryption)', async () => {
    const fresh = path.join(dir, 'fresh', 'agent.json');
    const key = generateMasterKey();
    const r = await run(['key', 'import', '-', '--config', fresh], keyFileText(key));
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(fresh, 'utf8'))).not.toHaveProperty('server');
  });

  it('rejects damaged key files clearly', async () => {
    const key = keyFileText(generateMasterKey());
    const typo = key.replace(
      /coffer-key-v1:(.)/,
      (_m, c: string) => `coffer-key-v1:${c === 'A' ? 'B' : 'A'}`,
    );
    for (const [text, message] of [
      ['hello', /no key found|not a Coffer key/],
      ['coffer-key-v1:abc', /43 base64url characters/],
      [typo, /does not match the fingerprint/],
    ] as const) {
      const r = await run(withConfig('key', 'import', '-', '--force'), text);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(message);
    }
  });
});

describe('coffer-agent db', () => {
  let ferret: FerretDB;
  beforeAll(async () => {
    ferret = await startFerretDB();
  }, 60_000);
  afterAll(async () => ferret?.stop());

  beforeEach(async () => {
    await run(withConfig('init', '--server', 'https://a.example', '--api-key', 'k'));
  });

  it('adds a database after checking the connection, and lists names only', async () => {
    const uri = `${ferret.uri}shop`;
    const r = await run(withConfig('db', 'add', 'prod', '--uri', uri));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Connected: database "shop" has 0 collection\(s\)/);
    expect(cfg().databases).toEqual([{ name: 'prod', uri, db: 'shop' }]);

    const fromStdin = await run(
      withConfig('db', 'add', 'staging', '--uri', '-', '--db', 'stage'),
      `${ferret.uri}\n`,
    );
    expect(fromStdin.code).toBe(0);
    expect(cfg().databases[1]).toEqual({ name: 'staging', uri: ferret.uri, db: 'stage' });

    const list = await run(withConfig('db', 'list'));
    expect(list.stdout).toBe('prod\nstaging\n');
    expect(list.stdout + list.stderr).not.toMatch(/mongodb:|127\.0\.0\.1/);

    expect((await run(withConfig('db', 'add', 'prod', '--uri', uri))).stderr).toMatch(/already exists/);
    expect((await run(withConfig('db', 'remove', 'prod'))).code).toBe(0);
    expect((await run(withConfig('db', 'list'))).stdout).toBe('staging\n');
    expect((await run(withConfig('db', 'remove', 'prod'))).stderr).toMatch(/no database named "prod"/);
  });

  it('sets a verify target from standard input, refuses the database itself, and clears it', async () => {
    const uri = `${ferret.uri}shop`;
    await run(withConfig('db', 'add', 'prod', '--uri', uri));
    const itself = await run(withConfig('db', 'verify-target', 'prod', '--uri', '-'), `${uri}\n`);
    expect(itself.code).toBe(1);
    expect(itself.stderr).toMatch(/refused: that connection string names the database itself/);
    const target = `${ferret.uri}admin`;
    const set = await run(withConfig('db', 'verify-target', 'prod', '--uri', '-'), `${target}\n`);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/scratch copy on mongodb:\/\/127\.0\.0\.1/);
    expect(cfg().databases).toEqual([{ name: 'prod', uri, db: 'shop', verifyTarget: target }]);
    expect((await run(withConfig('db', 'verify-target', 'prod'))).stderr).toMatch(
      /either --uri URI .* or --clear/,
    );
    expect((await run(withConfig('db', 'verify-target', 'nope', '--clear'))).stderr).toMatch(
      /no database named/,
    );
    expect((await run(withConfig('db', 'verify-target', 'prod', '--clear'))).code).toBe(0);
    expect(cfg().databases).toEqual([{ name: 'prod', uri, db: 'shop' }]);
  });

  it('refuses unreachable servers, URIs without a database and bad names, without saving', async () => {
    const cases: Array<[string[], string, RegExp]> = [
      [
        ['db', 'add', 'down', '--uri', 'mongodb://app:s3cretpw@127.0.0.1:1/shop'],
        '',
        /Cannot connect to database "down"/,
      ],
      [['db', 'add', 'nodb', '--uri', ferret.uri], '', /names no database/],
      [['db', 'add', 'bad', '--uri', `${ferret.uri}x`, '--db', 'has space'], '', /contains a space/],
      [['db', 'add', 'bad name', '--uri', `${ferret.uri}x`], '', /is not allowed/],
      [['db', 'add', 'pg', '--uri', 'postgres://h/x'], '', /not a MongoDB connection string/],
      [['db', 'add', 'empty', '--uri', '-'], '\n\n', /no connection string on standard input/],
    ];
    for (const [args, stdin, message] of cases) {
      const r = await run(withConfig(...args), stdin);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toContain('s3cretpw');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(cfg().databases).toEqual([]);
  }, 60_000);
});

describe('coffer-agent config updates', () => {
  it('turns updates off and on in the config, shows the setting, and refuses other values', async () => {
    await run(withConfig('init', '--server', 'https://a.example', '--api-key', 'ak_1', '--name', 'one'));
    expect((await run(withConfig('config', 'updates'))).stdout).toBe('updates: on\n');
    const off = await run(withConfig('config', 'updates', 'off'));
    expect(off.code).toBe(0);
    expect(off.stdout).toMatch(/^updates: off — this agent refuses the updates the server asks for/);
    expect(cfg()).toMatchObject({ updates: 'off', apiKey: 'ak_1', name: 'one' });
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect((await run(withConfig('config', 'updates'))).stdout).toBe('updates: off\n');
    expect((await run(withConfig('config', 'updates', 'on'))).code).toBe(0);
    expect(cfg()).toMatchObject({ updates: 'on' });
    const wrong = await run(withConfig('config', 'updates', 'maybe'));
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/config updates: expected on or off, not "maybe"/);
    expect((await run(withConfig('config', 'colour'))).stderr).toMatch(/unknown config setting "colour"/);
  });
});

describe('coffer-agent restores', () => {
  it('shows the defaults, changes each setting on the host, and refuses what it does not know', async () => {
    await run(withConfig('init', '--server', 'https://a.example', '--api-key', 'ak_x', '--name', 'one'));
    const shown = await run(withConfig('restores'));
    expect(shown).toMatchObject({ code: 0 });
    expect(shown.stdout).toContain('Restores from the dashboard: allowed');
    expect(shown.stdout).toContain('only those bound to the database being restored');
    expect(cfg()).not.toHaveProperty('restores'); // defaults are not written

    expect((await run(withConfig('restores', 'deny'))).stdout).toContain(
      'Restores from the dashboard: refused (coffer-agent restores allow)',
    );
    expect((await run(withConfig('restores', 'binding', 'optional'))).code).toBe(0);
    expect((cfg() as { restores?: unknown }).restores).toEqual({ allowed: false, requireBinding: false });
    expect((await run(withConfig('restores', 'allow'))).code).toBe(0);
    expect((await run(withConfig('restores', 'binding', 'required'))).code).toBe(0);
    expect((cfg() as { restores?: unknown }).restores).toEqual({ allowed: true, requireBinding: true });

    const bad = await run(withConfig('restores', 'binding', 'sometimes'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('restores binding: say "required" or "optional", not "sometimes"');
    expect((await run(withConfig('restores', 'everything'))).code).toBe(2);
  });
});

describe('coffer-agent decrypt and verify', () => {
  let key: Buffer;
  beforeEach(async () => {
    await run(withConfig('init', '--server', 'https://a.example', '--api-key', 'k'));
    key = parseKeyFile(cfg().masterKey);
  });

  const backup = (payload: Buffer, k: Buffer) => {
    const file = path.join(dir, 'backup-shop-2025-01-01T00:00:00.000Z.enc.coffer');
    writeFileSync(
      file,
      encryptPayload(payload, { masterKey: k, compression: Compression.None, chunkSize: 1024 }),
    );
    return file;
  };

  it('verify names the database and backup of a bound file and checks its archive against the record', async () => {
    const data = Buffer.from('mongodump archive bytes '.repeat(500));
    const bound = (recordSha: string) =>
      encryptPayload(data, {
        masterKey: key,
        compression: Compression.None,
        binding: { label: 'shop', backupId: 'aaaaaaaaaaaaaaaaaaaaaaaa' },
        recordBytes: () =>
          encodeRecord({
            archiveBytes: data.length,
            archiveSha256: recordSha,
            namespaces: [{ ns: 'shop.a', documents: 2 }],
          }),
      });
    const file = path.join(dir, 'bound.coffer');
    writeFileSync(file, bound(sha256Hex(data)));
    const ok = await run(withConfig('verify', file));
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('It is backup aaaaaaaaaaaaaaaaaaaaaaaa of database "shop": 1 collection(s)');
    writeFileSync(file, bound(sha256Hex(Buffer.from('other'))));
    const bad = await run(withConfig('verify', file));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('does not match the SHA-256 in its sealed record');
  });

  it('verifies and writes the archive next to the file by default', async () => {
    const data = Buffer.from('mongodump archive bytes '.repeat(500));
    const file = backup(data, key);
    expect((await run(withConfig('verify', file))).stdout).toMatch(
      /^OK: .* complete, unaltered Coffer backup \(12 chunk\(s\)/,
    );
    const r = await run(withConfig('decrypt', file));
    expect(r.code).toBe(0);
    const out = path.join(dir, 'backup-shop-2025-01-01T00:00:00.000Z.archive');
    expect(readFileSync(out).equals(data)).toBe(true);
    expect(r.stderr).toContain('mongorestore --archive=');
    expect((await run(withConfig('decrypt', file))).stderr).toMatch(/already exists/);
    const toStdout = await run(withConfig('decrypt', file, '-o', '-'));
    expect(toStdout.stdout).toBe(data.toString());
  });

  it('decrypts with --key-file and no config at all', async () => {
    const other = generateMasterKey();
    const file = backup(Buffer.from('x'), other);
    const keyFile = path.join(dir, 'k.key');
    writeFileSync(keyFile, keyFileText(other));
    const r = await run([
      'decrypt',
      file,
      '-o',
      path.join(dir, 'x.archive'),
      '--key-file',
      keyFile,
      '--config',
      path.join(dir, 'none.json'),
    ]);
    expect(r.code).toBe(0);
  });

  it.each<[string, (f: Buffer) => Buffer, RegExp]>([
    [
      'a flipped bit',
      (f) => ((f[500] = f[500]! ^ 1), f),
      /^coffer-agent: Chunk 0 \(at byte 67\) is corrupt: it failed authentication/,
    ],
    ['truncation', (f) => f.subarray(0, f.length - 10), /^coffer-agent: The file is truncated/],
    [
      'appended bytes',
      (f) => Buffer.concat([f, Buffer.from('junk')]),
      /^coffer-agent: The file has 4 byte\(s\) of unexpected data after its final chunk/,
    ],
    [
      'a foreign file',
      () => Buffer.from('{"not":"a backup"}'),
      /^coffer-agent: This is not a Coffer backup file/,
    ],
  ])('refuses %s with one clear line and writes nothing', async (_n, mutate, message) => {
    const file = backup(Buffer.from('y'.repeat(3000)), key);
    writeFileSync(file, mutate(readFileSync(file)));
    const out = path.join(dir, 'out.archive');
    const r = await run(withConfig('decrypt', file, '-o', out));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(out)).toBe(false);
  });

  it.each([
    ['is not zstd', Buffer.from('not zstd at all '.repeat(400))],
    [
      'is cut short',
      zlib.zstdCompressSync(Buffer.from('mongodump archive bytes '.repeat(9000))).subarray(0, -9),
    ],
  ])(
    'an authenticated payload that %s: decrypt and verify fail with one line and leave no file',
    async (_what, payload) => {
      const file = path.join(dir, 'b.coffer');
      writeFileSync(
        file,
        encryptPayload(payload, { masterKey: key, compression: Compression.Zstd, chunkSize: 1024 }),
      );
      const before = readdirSync(dir).sort();
      for (const args of [
        ['verify', file],
        ['decrypt', file, '-o', path.join(dir, 'out.archive')],
      ]) {
        const r = await run(withConfig(...args));
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(
          /^coffer-agent: The backup decrypted correctly but its zstd data is invalid: .*\.\n$/,
        );
      }
      expect(readdirSync(dir).sort()).toEqual(before); // no output and no hidden .partial file
    },
  );

  it('names both fingerprints for the wrong key', async () => {
    const other = generateMasterKey();
    const file = backup(Buffer.from('z'), other);
    const r = await run(withConfig('decrypt', file));
    expect(r.stderr).toBe(
      `coffer-agent: This backup was encrypted with a different key (fingerprint ${fingerprintHex(other)}, agent key ${fingerprintHex(key)}).\n`,
    );
  });
});

describe('coffer-agent status, run and mistakes', () => {
  it('status says not running without a fresh status file, and running with one', async () => {
    await run(withConfig('init', '--server', 'https://a.example', '--api-key', 'k'));
    expect((await run(withConfig('status'))).stdout).toBe('not running\n');
    const statusFile = path.join(path.dirname(config), 'agent.status.json');
    const now = new Date().toISOString();
    await writeStatus(statusFile, {
      pid: process.pid,
      version: '0.1.0',
      startedAt: now,
      updatedAt: now,
      connected: true,
    });
    expect((await run(withConfig('status'))).stdout).toMatch(/^running \(pid \d+/);
    await writeStatus(statusFile, {
      pid: process.pid,
      version: '0.1.0',
      startedAt: now,
      updatedAt: '2020-01-01T00:00:00.000Z',
      connected: true,
    });
    expect((await run(withConfig('status'))).stdout).toMatch(/^not running \(last heartbeat/);
  });

  it('run needs a server and API key, unknown commands are usage errors, missing config is explained', async () => {
    const keyOnly = path.join(dir, 'key-only.json');
    expect(
      (await run(['key', 'import', '-', '--config', keyOnly], keyFileText(generateMasterKey()))).code,
    ).toBe(0);
    expect(await run(['run', '--config', keyOnly])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/has no server or API key; run `coffer-agent init/),
    });
    expect(await run(withConfig('frobnicate'))).toMatchObject({
      code: 2,
      stderr: 'coffer-agent: unknown command "frobnicate" (see coffer-agent --help)\n',
    });
    expect(await run(withConfig('db', 'list'))).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/No agent config at .* Run `coffer-agent init/),
    });
    expect((await run(['--help'])).stdout).toMatch(/^coffer-agent — the Coffer backup agent/);
    expect((await run([])).code).toBe(2);
  });

  it('the installed launcher runs the compiled CLI', () => {
    const agentDir = path.resolve(__dirname, '..', '..');
    if (!existsSync(path.join(agentDir, 'dist', 'cli', 'main.js'))) {
      execFileSync('npx', ['tsc', '-b', agentDir], { stdio: 'inherit' });
    }
    const bin = path.join(agentDir, 'bin', 'coffer-agent');
    expect(statSync(bin).mode & 0o111).not.toBe(0);
    const pkg = JSON.parse(readFileSync(path.join(agentDir, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(pkg.bin['coffer-agent']).toBe('bin/coffer-agent');
    const r = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    expect(r.stdout.trim()).toMatch(
      /^coffer-agent \d+\.\d+\.\d+ \(linux-x64, Node\.js v\d+\.\d+\.\d+, script\)$/,
    );
    const bad = spawnSync(process.execPath, [bin, 'db', 'list', '--config', path.join(dir, 'missing.json')], {
      encoding: 'utf8',
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^coffer-agent: No agent config/);
  }, 120_000);
});
