// The servers' own locks, against the real binaries: Redis's ACL users (what the gateway's user
// may and may not do), FerretDB on its private Unix socket (crash, restart, clean-up), and its
// PostgreSQL answering equality filters from an index.
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import {
  ferretDbBackend,
  REDIS_RULES,
  serverUsers,
  startFerretDb,
  startRedis,
  urlWithUser,
  type RunningServer,
} from './servers';

jest.setTimeout(60_000);

/**
 * Sends `commands` (one a line) over one redis-cli connection and returns its output lines (an
 * error is followed by an empty line, a nil is one).
 */
function redisCli(url: string | undefined, port: number, commands: string[]): Promise<string[]> {
  const args = url ? ['--no-auth-warning', '-u', url] : ['-p', String(port)];
  return new Promise((resolve, reject) => {
    const cli = execFile('redis-cli', args, (err, stdout) => {
      if (err) reject(err);
      else resolve(stdout.trimEnd().split('\n'));
    });
    cli.stdin!.end(commands.join('\n') + '\n');
  });
}

describe('Redis with ACL users', () => {
  const users = serverUsers(['gateway', 'client']);
  let redis: RunningServer;
  let gateway: string;
  beforeAll(async () => {
    redis = await startRedis({ users });
    gateway = urlWithUser(`redis://127.0.0.1:${redis.port}`, users[0]!);
  });
  afterAll(() => redis?.stop());

  it('answers nothing before AUTH: the default user is off', async () => {
    const answers = await redisCli(undefined, redis.port, [
      'PING',
      'GET coffer:rate:x',
      'PUBLISH socket.io#/# x',
    ]);
    expect(answers.filter(Boolean)).toEqual(Array(3).fill(expect.stringMatching(/^NOAUTH/)));
  });

  it("lets the gateway count rate limits and use the Socket.IO adapter's channels", async () => {
    const answers = await redisCli(gateway, redis.port, [
      'MULTI',
      'INCR coffer:rate:login:1',
      'EXPIRE coffer:rate:login:1 60 NX',
      'GET coffer:rate:login:0',
      'EXEC',
      'PUBLISH socket.io#/agents#agents-of:u1# x',
      'PUBLISH socket.io-request#/# x',
      'PUBSUB NUMSUB socket.io-request#/#',
    ]);
    expect(answers).toEqual([
      'OK',
      'QUEUED',
      'QUEUED',
      'QUEUED',
      '1',
      '1',
      '',
      '0',
      '0',
      'socket.io-request#/#',
      '0',
    ]);
  });

  it.each([
    ['GET session:abc', /NOPERM.*keys/],
    ['KEYS *', /NOPERM/],
    ['FLUSHALL', /NOPERM/],
    ['ACL LIST', /NOPERM/],
    ['CONFIG SET save ""', /NOPERM/],
    ['CLIENT KILL TYPE pubsub', /NOPERM/],
    ['PUBLISH other-channel x', /NOPERM.*channels/],
  ])('refuses the gateway %s', async (command, refusal) => {
    expect((await redisCli(gateway, redis.port, [command])).filter(Boolean)).toEqual([
      expect.stringMatching(refusal),
    ]);
  });

  it('gives the tools user everything, and keeps no password in its ACL file', async () => {
    expect(await redisCli(redis.url, redis.port, ['ACL WHOAMI', 'DBSIZE'])).toEqual(['client', '1']);
    const acl = fs.readFileSync(
      path.join(path.dirname(redis.proc.logFile), '..', 'redis-conf', 'users.acl'),
      'utf8',
    );
    for (const u of users) expect(acl).not.toContain(u.password);
  });
});

it("gives the gateway the same Redis rules in k8s's ACL file example as here", () => {
  const acl = fs.readFileSync(
    path.resolve(__dirname, '../../../k8s/secrets/redis-users.acl.example'),
    'utf8',
  );
  expect(acl).toContain(`\nuser gateway on #SHA256_OF_PASSWORD ${REDIS_RULES.gateway}\n`);
  expect(acl).toContain('\nuser default off ');
});

it('gives the gateway the same Redis rules in docker-compose.yml as here', () => {
  const compose = fs.readFileSync(path.resolve(__dirname, '../../../docker-compose.yml'), 'utf8');
  // The redis service's command list, one item a line; the gateway's rules follow `gateway on >…`.
  const command = /\n {2}redis:\n[\s\S]*?\n {4}command:\n((?: {6}- .*\n)+)/.exec(compose)?.[1] ?? '';
  const items = command
    .trimEnd()
    .split('\n')
    .map((l) => l.replace(/^\s*- /, '').replace(/^'(.*)'$/, '$1'));
  const at = items.indexOf('gateway');
  expect(items.slice(at, at + 2)).toEqual(['gateway', 'on']);
  expect(items.slice(at + 3).join(' ')).toBe(REDIS_RULES.gateway);
});

describe('FerretDB on a private Unix socket', () => {
  const ping = async (url: string) => {
    const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 10_000 });
    try {
      return (await client.db('admin').command({ ping: 1 })).ok as number;
    } finally {
      await client.close();
    }
  };

  it('serves on the socket, comes back after a crash, and removes its folder on stop', async () => {
    const ferret = await startFerretDb({ unixSocket: true });
    const socket = decodeURIComponent(new URL(ferret.url).host);
    try {
      expect(fs.statSync(path.dirname(socket)).mode & 0o777).toBe(0o700);
      expect(await ping(ferret.url)).toBe(1);
      // A crash leaves the socket file behind; the restart binds anew.
      await ferret.proc.kill();
      expect(fs.existsSync(socket)).toBe(true);
      await ferret.proc.restart();
      expect(await ping(ferret.url)).toBe(1);
    } finally {
      await ferret.stop();
    }
    expect(fs.existsSync(path.dirname(socket))).toBe(false);
  });

  it.each([
    ['too deep for a socket path', 'd'.repeat(100)],
    ['spelt with capitals', 'Data'],
  ])('puts the socket in a short folder of its own when the data folder is %s', async (_, sub) => {
    const top = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-deep-'));
    const dataDir = path.join(top, sub);
    const ferret = await startFerretDb({ unixSocket: true, dataDir });
    const socket = decodeURIComponent(new URL(ferret.url).host);
    try {
      expect(socket.length).toBeLessThanOrEqual(100);
      expect(socket.startsWith(top)).toBe(false);
      expect(fs.statSync(path.dirname(socket)).mode & 0o777).toBe(0o700);
      expect(await ping(ferret.url)).toBe(1);
      // mongodump (Go driver) reaches it too: it lower-cases socket paths.
      const dumped = spawnSync('mongodump', ['--uri', `${ferret.url}/`, '--db', 'admin', '--archive'], {
        encoding: 'utf8',
      });
      expect({ status: dumped.status, stderr: dumped.stderr }).toMatchObject({ status: 0 });
    } finally {
      await ferret.stop();
      fs.rmSync(top, { recursive: true, force: true });
    }
    expect(fs.existsSync(path.dirname(socket))).toBe(false);
  });
});

describe('FerretDB on PostgreSQL', () => {
  it('answers an equality filter on an indexed field from an index, and keeps PostgreSQL off TCP', async () => {
    const ferret = await startFerretDb({ backend: 'postgresql' });
    const client = await MongoClient.connect(`${ferret.url}/`);
    try {
      const db = client.db('growth');
      await db.collection('backups').createIndex({ userId: 1, createdAt: -1 });
      await db
        .collection('backups')
        .insertMany(
          Array.from({ length: 3000 }, (_, i) => ({ userId: `u${i % 300}`, createdAt: new Date(i) })),
        );
      const explained = await db.command({ explain: { find: 'backups', filter: { userId: 'u7' } } });
      const plan = JSON.stringify(explained.queryPlanner);
      // The pushed-down filter (`_jsonb->'userId' @> ...`) is answered by the GIN index our
      // FerretDB build adds beside each index (deploy/local/ferretdb-gin-indexes.patch).
      expect(explained.filterPushdown).toBe(true);
      expect(plan).toMatch(/Bitmap Index Scan/);
      expect(plan).toMatch(/_gin"/);
      expect(await db.collection('backups').countDocuments({ userId: 'u7' })).toBe(10);

      // PostgreSQL listens only on its socket, in a folder only this OS user may enter.
      const pgSocketDir = new URLSearchParams(ferret.postgres!.url.split('?')[1]).get('host')!;
      expect(fs.statSync(pgSocketDir).mode & 0o777).toBe(0o700);
      const listeners = spawnSync('ss', ['-ltnp'], { encoding: 'utf8' }).stdout;
      expect(listeners).toMatch(/LISTEN/);
      expect(listeners).not.toMatch(new RegExp(`pid=${ferret.postgres!.proc.child.pid},`));
    } finally {
      await client.close();
      await ferret.stop();
    }
  });

  it('is the default, and SQLite stays selectable', async () => {
    expect(ferretDbBackend({})).toBe('postgresql');
    expect(ferretDbBackend({ COFFER_FERRETDB_BACKEND: 'sqlite' })).toBe('sqlite');
    expect(() => ferretDbBackend({ COFFER_FERRETDB_BACKEND: 'mysql' })).toThrow(/postgresql .* or sqlite/);
    const ferret = await startFerretDb({ backend: 'sqlite' });
    try {
      expect(ferret.postgres).toBeUndefined();
      const client = await MongoClient.connect(`${ferret.url}/`);
      expect((await client.db('admin').command({ ping: 1 })).ok).toBe(1);
      await client.close();
    } finally {
      await ferret.stop();
    }
  });
});
