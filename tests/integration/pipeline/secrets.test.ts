// Zero knowledge, checked from the outside: after a backup and a restore through the whole stack,
// neither the connection string (nor its database name or credentials) nor the master key (in any
// spelling) appears in anything the service side holds: every NATS message published meanwhile and
// every file under the stack's data folder (logs, FerretDB's SQLite files, Redis, the NATS store,
// the stored blobs). The customer's own FerretDB folder is not the service's and is not searched.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { natsConnectOptions } from '@coffer/common';
import { newUser, type TestUser } from '../helpers';
import { mutate, seedDatabase } from '../../../agent/src/testing/database-fixtures';
import {
  agentCli,
  backupCompleted,
  customerDbForFile,
  restoreEnded,
  setupAgent,
  uniqueName,
  type Agent,
} from './harness';

jest.setTimeout(120_000);

const LABEL = 'crm';
const DB = uniqueName('zkdb_');
const credentials = { user: uniqueName('zkuser_'), password: uniqueName('zk-pw-') };

const customer = customerDbForFile();
let owner: TestUser;
let agent: Agent;
let nats: NatsConnection;
const captured: Array<{ subject: string; bytes: Buffer }> = [];

beforeAll(async () => {
  owner = await newUser('secrets');
  await seedDatabase(customer().client, DB, { events: 300 });
  nats = await connect(natsConnectOptions(process.env.COFFER_NATS_URL!));
  nats.subscribe('>', {
    callback: (_err, msg) => {
      const headers = msg.headers ? [...msg.headers].map(([k, v]) => `${k}: ${v.join(',')}`).join('\n') : '';
      captured.push({
        subject: msg.subject,
        bytes: Buffer.concat([Buffer.from(`${msg.subject}\n${headers}\n`), Buffer.from(msg.data)]),
      });
    },
  });
  await nats.flush();
  agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB, credentials) }]);
});

afterAll(async () => {
  await nats?.close();
});

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/** Needles that are found in `haystack` (bytes compared as-is). */
const found = (haystack: Buffer, needles: Map<string, Buffer>) =>
  [...needles].filter(([, n]) => haystack.includes(n)).map(([name]) => name);

it('no connection string, database name, credential or master key reaches the service side', async () => {
  const backup = await backupCompleted(owner.token, LABEL, agent);
  await mutate(customer().client, DB);
  const restore = await restoreEnded(owner.token, backup._id, LABEL, agent);
  expect(restore.status).toBe('completed');
  await nats.flush();

  const keyFile = (await agentCli(['key', 'export'], agent.config)).stdout;
  const keyLine = keyFile.split('\n').find((l) => l.startsWith('coffer-key-v1:'))!;
  const raw = Buffer.from(keyLine.slice('coffer-key-v1:'.length), 'base64url');
  expect(raw).toHaveLength(32);
  const uri = customer().uri(DB, credentials);
  const needles = new Map<string, Buffer>(
    Object.entries({
      'connection string': uri,
      'database name': DB,
      'database user': credentials.user,
      'database password': credentials.password,
      'master key (text form)': keyLine,
      'master key (hex)': raw.toString('hex'),
      'master key (HEX)': raw.toString('hex').toUpperCase(),
      'master key (base64)': raw.toString('base64'),
      'master key (base64url)': raw.toString('base64url'),
      'master key (raw bytes)': raw,
    }).map(([k, v]) => [k, Buffer.isBuffer(v) ? v : Buffer.from(v)]),
  );

  // The search itself works: the agent's own config holds them, the customer's database its name.
  expect(found(fs.readFileSync(agent.config), needles)).toEqual(
    expect.arrayContaining(['connection string', 'master key (text form)']),
  );
  expect(filesUnder(customer().dir).some((f) => f.includes(DB) || fs.readFileSync(f).includes(DB))).toBe(
    true,
  );

  // NATS: every message published while the backup and the restore ran.
  expect(captured.some((m) => m.subject.startsWith('backup.'))).toBe(true);
  expect(captured.some((m) => m.subject.startsWith('restore.'))).toBe(true);
  expect(captured.some((m) => m.bytes.includes(backup._id))).toBe(true);
  const inNats = captured.flatMap((m) => found(m.bytes, needles).map((what) => `${what} in ${m.subject}`));
  expect(inNats).toEqual([]);

  // Every file the service side keeps. Redis writes its data on SAVE; logs are flushed by now.
  execFileSync('redis-cli', ['-u', process.env.COFFER_REDIS_URL!, 'SAVE'], { stdio: 'pipe' });
  const dataDir = process.env.COFFER_DATA_DIR!;
  expect(path.relative(dataDir, customer().dir).startsWith('..')).toBe(true);
  const files = filesUnder(dataDir);
  const names = files.map((f) => path.relative(dataDir, f));
  expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^logs\/gateway/)]));
  expect(names.some((n) => n.startsWith('storage/blobs/'))).toBe(true);
  expect(names.some((n) => n.startsWith('redis/'))).toBe(true);
  expect(names.some((n) => n.startsWith('nats/'))).toBe(true);
  // The service's database: PostgreSQL's files under FerretDB (SQLite's when chosen instead).
  const dbFolder = process.env.COFFER_FERRETDB_BACKEND === 'sqlite' ? 'ferretdb/' : 'postgres/';
  const dbFiles = files.filter((f) => path.relative(dataDir, f).startsWith(dbFolder));
  expect(dbFiles.length).toBeGreaterThan(0);
  // The search reaches what the service stored there: the backup's own record is in those files.
  const holdsBackupId = (f: string) => {
    try {
      return fs.readFileSync(f).includes(backup._id);
    } catch {
      return false; // removed meanwhile (a temp file)
    }
  };
  expect(dbFiles.some(holdsBackupId)).toBe(true);
  const textNeedles = [...needles].filter(([k]) => !k.includes('raw bytes'));
  expect(names.filter((n) => textNeedles.some(([, v]) => n.includes(v.toString())))).toEqual([]);
  const inFiles = files.flatMap((f) => {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(f);
    } catch {
      return []; // removed meanwhile (a temp file)
    }
    return found(bytes, needles).map((what) => `${what} in ${path.relative(dataDir, f)}`);
  });
  expect(inFiles).toEqual([]);
});
