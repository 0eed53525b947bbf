// The whole pipeline as a customer uses it: the real agent backs up a FerretDB through the
// gateway, orchestrator and storage; the data changes; a restore through the service brings back
// every collection, document (byte for byte) and index. Live events reach the owner only. The
// downloaded file decrypts offline with the agent and with the independent Python decryptor.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { api, baseUrl, eventually, newUser, type TestUser } from '../helpers';
import {
  documentCount,
  mutate,
  seedDatabase,
  snapshot,
  type Snapshot,
} from '../../../agent/src/testing/database-fixtures';
import {
  agentCli,
  backupCompleted,
  customerDbForFile,
  REPO,
  restoreEnded,
  setupAgent,
  uniqueName,
  type Agent,
} from './harness';

jest.setTimeout(120_000);

const LABEL = 'shop-db';
const SRC = uniqueName('shop_');
const customer = customerDbForFile();
let owner: TestUser;
let agent: Agent;
let tmp: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-e2e-roundtrip-'));
  owner = await newUser('pipeline');
  await seedDatabase(customer().client, SRC);
  agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(SRC) }]);
});

afterAll(async () => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

interface LiveEvent {
  event: string;
  backupId?: string;
  restoreId?: string;
  status: string;
  progress?: { current: number; total: number; percentage: number; collection: string };
  error?: string;
}

function listen(token: string): { socket: Socket; events: LiveEvent[]; ready: Promise<void> } {
  const socket = io(baseUrl(), { path: '/api/socket.io', auth: { token }, transports: ['websocket'] });
  const events: LiveEvent[] = [];
  socket.on('backupProgress', (e: LiveEvent) => events.push({ ...e, event: 'backupProgress' }));
  socket.on('restoreProgress', (e: LiveEvent) => events.push({ ...e, event: 'restoreProgress' }));
  const ready = new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  return { socket, events, ready };
}

describe('backup and restore through the service', () => {
  let original: Snapshot;
  let backup: any;

  it('backs up, restores over changed data, and sends live events to the owner only', async () => {
    const stranger = await newUser('stranger');
    const mine = listen(owner.token);
    const theirs = listen(stranger.token);
    try {
      await Promise.all([mine.ready, theirs.ready]);
      original = await snapshot(customer().client, SRC);
      expect(original.collections).toEqual(
        expect.arrayContaining(['customers', 'empty', 'with space', 'dots.in.name', 'ünïcode', 'events']),
      );

      backup = await backupCompleted(owner.token, LABEL, agent);
      expect(backup).toMatchObject({ databaseName: LABEL, status: 'completed' });
      expect(backup.size).toBeGreaterThan(100_000); // 1000 incompressible events, encrypted

      await mutate(customer().client, SRC);
      expect(await snapshot(customer().client, SRC)).not.toEqual(original);

      const restore = await restoreEnded(owner.token, backup._id, LABEL, agent);
      expect(restore).toMatchObject({ status: 'completed', documentsFailed: 0 });
      expect(restore.error).toBeUndefined();
      expect(restore.documentsRestored).toBe(documentCount(original));

      const restored = await snapshot(customer().client, SRC);
      expect(restored.collections).toEqual(original.collections);
      expect(restored.indexes).toEqual(original.indexes);
      for (const name of original.collections)
        expect(restored.documents[name]).toEqual(original.documents[name]);

      // Live events: the owner sees the backup and the restore through to the end.
      const ofBackup = () => mine.events.filter((e) => e.backupId === backup._id);
      await eventually(async () => expect(ofBackup().map((e) => e.status)).toContain('completed'));
      expect(ofBackup().some((e) => e.status !== 'completed')).toBe(true);
      const progress = ofBackup().filter((e) => e.progress);
      expect(progress.length).toBeGreaterThan(0);
      for (const p of progress) {
        expect(p.progress).toEqual({
          current: expect.any(Number),
          total: expect.any(Number),
          percentage: expect.any(Number),
          collection: expect.any(String),
          estimated: expect.any(Boolean),
        });
      }
      await eventually(async () =>
        expect(mine.events.filter((e) => e.restoreId === restore._id).map((e) => e.status)).toContain(
          'completed',
        ),
      );
      // …and another user sees nothing of it.
      expect(theirs.events.filter((e) => e.backupId === backup._id || e.restoreId === restore._id)).toEqual(
        [],
      );
    } finally {
      mine.socket.close();
      theirs.socket.close();
    }
  });

  it('refuses a second manual backup inside the plan interval with 429 and nextBackupAvailable', async () => {
    expect(backup).toBeDefined();
    const res = await api('POST', '/api/backups', { token: owner.token, body: { databaseName: LABEL } });
    expect(res.status).toBe(429);
    expect(res.body.message).toEqual(expect.any(String));
    expect(res.body.message?.length).toBeGreaterThan(0);
    const next = Date.parse(res.body.nextBackupAvailable ?? '');
    expect(new Date(next).toISOString()).toBe(res.body.nextBackupAvailable);
    expect(next).toBeGreaterThan(Date.now());
  });

  it('downloads a file that decrypts offline (agent and Python) and restores with plain mongorestore', async () => {
    expect(backup).toBeDefined();
    const res = await fetch(`${baseUrl()}/api/backups/${backup._id}/download`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(body.length);
    expect(body.length).toBe(backup.size);
    expect(body.subarray(0, 6).toString('ascii')).toBe('COFFER');
    const expectedName = `backup-${LABEL}-${backup.createdAt}.enc.coffer`;
    expect(new Date(backup.createdAt).toISOString()).toBe(backup.createdAt);
    expect(res.headers.get('content-disposition')).toContain(`filename="${expectedName}"`);

    const file = path.join(tmp, expectedName);
    fs.writeFileSync(file, body);
    const archive = path.join(tmp, 'backup.archive');
    const decrypted = await agentCli(['decrypt', file, '-o', archive], agent.config);
    expect(decrypted).toMatchObject({ code: 0 });

    // The independent decryptor, from the documented format and the exported key file.
    const keyFile = path.join(tmp, 'master.key');
    expect((await agentCli(['key', 'export', '--out', keyFile], agent.config)).code).toBe(0);
    const pyOut = path.join(tmp, 'python.archive');
    execFileSync('python3', [path.join(REPO, 'docs/decrypt_coffer.py'), '--key-file', keyFile, file, pyOut], {
      stdio: 'pipe',
    });
    expect(fs.readFileSync(pyOut).equals(fs.readFileSync(archive))).toBe(true);

    // Plain mongorestore, no Coffer involved, into another database.
    const other = uniqueName('copy_');
    execFileSync(
      'mongorestore',
      [
        `--uri=mongodb://127.0.0.1:${customer().port}/`,
        `--archive=${archive}`,
        `--nsFrom=${SRC}.*`,
        `--nsTo=${other}.*`,
      ],
      { stdio: 'pipe' },
    );
    const copy = await snapshot(customer().client, other);
    expect(copy.collections).toEqual(original.collections);
    for (const name of original.collections) expect(copy.documents[name]).toEqual(original.documents[name]);
    expect(copy.indexes).toEqual(original.indexes);
  });
});
