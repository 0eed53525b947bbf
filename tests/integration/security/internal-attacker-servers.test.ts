// The servers behind Coffer, attacked as another local user of the host would (issue 19): an
// unprivileged OS user (`nobody`, through runuser) without Coffer's credentials tries Redis (reading
// and writing keys, and publishing on the Socket.IO Redis adapter's channels, which once sent a
// forged `command` to an agent and a forged "completed" to a browser), Coffer's FerretDB (its Unix
// socket's folder) and MinIO (anonymous, and with the well-known default keys). Each is refused;
// each check has a counterpart with the right credentials that passes, so a refusal is the
// credentials' doing and not a server that is down. The gRPC side is internal-attacker.test.ts.
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { MongoClient } from 'mongodb';
import { startStack, type Stack } from '@coffer/local-stack';
import { TEST_STACK_ENV } from '../stack-env';

jest.setTimeout(120_000);

const REPO = path.resolve(__dirname, '../../..');
// Binaries `nobody` may run: nothing under /root (the node and tools this test runs with) is.
const PYTHON = '/usr/bin/python3';
const REDIS_CLI = '/usr/bin/redis-cli';

interface Ran {
  code: number | null;
  out: string;
}

/** Runs a command, as `nobody` unless `asRoot`, and returns its exit code and output. */
function run(cmd: string, args: string[], opts: { asRoot?: boolean } = {}): Promise<Ran> {
  const [file, argv] = opts.asRoot ? [cmd, args] : ['runuser', ['-u', 'nobody', '--', cmd, ...args]];
  return new Promise((resolve) => {
    execFile('timeout', ['20', file, ...argv], (err, stdout, stderr) => {
      resolve({
        code: err ? ((err as { code?: number }).code ?? null) : 0,
        out: `${stdout}${stderr}`.trim(),
      });
    });
  });
}

const root = process.getuid?.() === 0;
// runuser needs root: CI and the development machines run as root; elsewhere say why nothing ran.
const describeAsRoot = root ? describe : describe.skip;
if (!root) console.warn('internal-attacker-servers: skipped, runuser needs root');

describeAsRoot('an unprivileged local user, without credentials', () => {
  beforeAll(() => {
    const nobody = spawnSync('runuser', ['-u', 'nobody', '--', 'id', '-u'], { encoding: 'utf8' });
    expect(nobody.stdout.trim()).not.toBe('0');
    for (const bin of [PYTHON, REDIS_CLI]) expect(fs.existsSync(bin)).toBe(true);
  });

  describe('Redis', () => {
    const url = new URL(process.env.COFFER_REDIS_URL!);
    const noCredentials = ['-h', url.hostname, '-p', url.port];
    const redis = (...args: string[]) => run(REDIS_CLI, [...noCredentials, ...args]);

    it('answers only with credentials (the tools user reaches it from the same OS user)', async () => {
      // Credentials, not the OS user or the network, make the difference.
      const withThem = await run(REDIS_CLI, ['--no-auth-warning', '-u', url.href, 'PING']);
      expect(withThem.out).toBe('PONG');
      expect((await redis('PING')).out).toMatch(/NOAUTH/);
    });

    it.each([
      'ACL LIST',
      'KEYS *',
      'GET coffer:rate:x',
      'SET coffer:forged 1',
      'FLUSHALL',
      'CONFIG SET protected-mode no',
      'SUBSCRIBE socket.io#/#',
    ])('refuses %s', async (command) => {
      expect((await redis(...command.split(' '))).out).toMatch(/NOAUTH/);
    });

    it("refuses a forged agent command and a forged job event on the Socket.IO adapter's channels", async () => {
      // The adapter's broadcast channels: `socket.io#<namespace>#<room>#`.
      const forged = Buffer.from('forged').toString('base64');
      for (const channel of ['socket.io#/agents#', 'socket.io#/#', 'socket.io-request#/#']) {
        const published = await redis('PUBLISH', channel, forged);
        expect(published.out).toMatch(/NOAUTH/);
      }
    });

    it('takes no password-less default user, nor the tools user with a guessed password', async () => {
      for (const user of ['default', 'client', 'gateway']) {
        const tried = await redis('--no-auth-warning', '--user', user, '--pass', 'coffer', 'PING');
        expect(tried.out).toMatch(/WRONGPASS|NOAUTH|invalid username-password/i);
      }
    });
  });

  describe("Coffer's FerretDB", () => {
    const socket = decodeURIComponent(new URL(process.env.COFFER_MONGO_URL!).host);

    it('listens on a Unix socket in a folder of its own, mode 0700, and on no TCP port', () => {
      expect(socket).toMatch(/\.sock$/);
      const folder = fs.statSync(path.dirname(socket));
      expect(folder.mode & 0o777).toBe(0o700);
      expect(folder.uid).toBe(process.getuid!());
      // This stack's FerretDB (other stacks on the host run their own), by the socket it was given.
      const pids = fs.readdirSync('/proc').filter((pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`--listen-unix=${socket}\0`);
        } catch {
          return false; // ended meanwhile, or not a process
        }
      });
      expect(pids).toHaveLength(1);
      const listeners = (kind: string) => spawnSync('ss', [`-Hl${kind}p`], { encoding: 'utf8' }).stdout;
      expect(listeners('x')).toContain(`pid=${pids[0]},`);
      expect(listeners('tn')).not.toContain(`pid=${pids[0]},`);
    });

    it('cannot be reached by another user (EACCES), while its own user reads it', async () => {
      const client = await MongoClient.connect(process.env.COFFER_MONGO_URL!);
      try {
        expect((await client.db('admin').command({ ping: 1 })).ok).toBe(1);
      } finally {
        await client.close();
      }
      const connect = `import socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\nprint('connected')`;
      const tried = await run(PYTHON, ['-c', connect, socket]);
      expect(tried.out).not.toMatch(/connected/);
      expect(tried.out).toMatch(/PermissionError: \[Errno 13\]/);
    });
  });

  describe("the stack's logs", () => {
    it('carry no connection string with a password in it', () => {
      const logDir = process.env.COFFER_LOG_DIR!;
      const logs = fs.readdirSync(logDir).filter((f) => f.endsWith('.log'));
      expect(logs).toEqual(expect.arrayContaining(['gateway-1.log', 'redis.log', 'ferretdb.log']));
      // scheme://user:password@ (a scrubbed one reads scheme://***@).
      const withPassword = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:]+:[^\s/@]+@/i;
      const leaks = logs.filter((f) => withPassword.test(fs.readFileSync(path.join(logDir, f), 'utf8')));
      expect(leaks).toEqual([]);
      // The tools' own URL is such a string: the pattern finds it.
      expect(withPassword.test(process.env.COFFER_REDIS_URL!)).toBe(true);
    });
  });

  describe('MinIO', () => {
    let stack: Stack | undefined;
    let dataDir: string | undefined;
    let s3: { url: string; accessKeyId: string; secretAccessKey: string };
    const BUCKET = 'coffer-backups';

    beforeAll(async () => {
      if (process.env.COFFER_S3_URL) {
        s3 = {
          url: process.env.COFFER_S3_URL,
          accessKeyId: process.env.COFFER_S3_ACCESS_KEY_ID!,
          secretAccessKey: process.env.COFFER_S3_SECRET_ACCESS_KEY!,
        };
        return;
      }
      // The shared stack keeps blobs on disk: a stack of this file's own, on S3 as production.
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-attacker-s3-'));
      stack = await startStack({
        repoRoot: REPO,
        dataDir,
        ports: 'free',
        storageBackend: 's3',
        env: {
          ...TEST_STACK_ENV,
          LOG_LEVEL: 'warn',
        },
      });
      s3 = {
        url: stack.urls.s3!,
        accessKeyId: stack.env.S3_ACCESS_KEY_ID!,
        secretAccessKey: stack.env.S3_SECRET_ACCESS_KEY!,
      };
    }, 240_000);

    afterAll(async () => {
      await stack?.stop();
      if (dataDir && !process.env.COFFER_KEEP_TEST_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    const list = async (credentials: { accessKeyId: string; secretAccessKey: string }) => {
      const client = new S3Client({
        endpoint: s3.url,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials,
      });
      try {
        return await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
      } finally {
        client.destroy();
      }
    };

    it("keeps its keys out of the stack's logs", () => {
      const logDir = stack?.logDir ?? process.env.COFFER_LOG_DIR!;
      for (const f of fs.readdirSync(logDir)) {
        expect(fs.readFileSync(path.join(logDir, f), 'utf8')).not.toContain(s3.secretAccessKey);
      }
    });

    it("runs with credentials of this installation's own, which the storage service has", async () => {
      expect(s3.accessKeyId).not.toMatch(/^(minioadmin|coffer-local)$/);
      expect(s3.secretAccessKey.length).toBeGreaterThanOrEqual(24);
      // The storage service made its bucket with them.
      expect((await list(s3)).$metadata.httpStatusCode).toBe(200);
    });

    it.each([
      ['GET', `/${BUCKET}?list-type=2`],
      ['GET', `/${BUCKET}/blobs/any`],
      ['PUT', `/${BUCKET}/blobs/forged`],
      ['DELETE', `/${BUCKET}/blobs/any`],
      ['GET', '/'],
    ])('refuses an anonymous %s %s with 403', async (method, where) => {
      const answered = await run('curl', [
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '-X',
        method,
        `${s3.url}${where}`,
      ]);
      expect(answered.out).toBe('403');
    });

    it.each([
      ['minioadmin', 'minioadmin'],
      ['coffer-local', 'coffer-local-secret'],
    ])('refuses the well-known keys %s', async (accessKeyId, secretAccessKey) => {
      await expect(list({ accessKeyId, secretAccessKey })).rejects.toMatchObject({
        $metadata: { httpStatusCode: 403 },
      });
    });
  });
});
