// Progress that tells the truth (issue 10), end to end: the real agent backs up and restores a
// FerretDB of some 40 000 documents through the gateway, orchestrator and storage, and the owner's
// browser socket receives the readings. They move while mongodump is still dumping, never go
// back, carry the real document count as total, and end at exactly 100 % with that count.
import { io, type Socket } from 'socket.io-client';
import type { BackupProgressEvent, ProgressInfo, RestoreProgressEvent } from '@coffer/contracts';
import { baseUrl, eventually, newUser, type TestUser } from '../helpers';
import { seedDatabase } from '../../../agent/src/testing/database-fixtures';
import {
  backupCompleted,
  customerDbForFile,
  restoreEnded,
  setupAgent,
  uniqueName,
  type Agent,
} from './harness';

jest.setTimeout(180_000);

const LABEL = 'progress-db';
const DB = uniqueName('progress_');
// Enough that mongodump spends several seconds on `events` (it prints bars every 3 s), while the
// small collections are done within the first second: readings exist between 0 and 100 %.
const EVENTS = 40_000;

const customer = customerDbForFile();
let owner: TestUser;
let agent: Agent;
let realCount: number;
let socket: Socket;
const backupEvents: BackupProgressEvent[] = [];
const restoreEvents: RestoreProgressEvent[] = [];

beforeAll(async () => {
  owner = await newUser('progress');
  await seedDatabase(customer().client, DB, { events: EVENTS });
  const d = customer().client.db(DB);
  realCount = 0;
  for (const c of await d.listCollections({}, { nameOnly: true }).toArray())
    realCount += await d.collection(c.name).countDocuments();
  agent = await setupAgent(owner, [{ label: LABEL, uri: customer().uri(DB) }]);
  socket = io(baseUrl(), { path: '/api/socket.io', auth: { token: owner.token }, transports: ['websocket'] });
  socket.on('backupProgress', (e: BackupProgressEvent) => backupEvents.push(e));
  socket.on('restoreProgress', (e: RestoreProgressEvent) => restoreEvents.push(e));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
});

afterAll(async () => {
  socket?.close();
});

/**
 * What the readings of one job must satisfy. `moving`: some reading lies strictly between 0 and
 * 100 % — for a backup, where mongodump works for seconds on `events` after the small collections
 * are done; a restore into FerretDB may be done before the agent's first second is up.
 */
function expectTruthful(readings: ProgressInfo[], collections: string[], moving: boolean) {
  expect(readings.length).toBeGreaterThan(1);
  for (const [i, p] of readings.entries()) {
    // FerretDB's collection statistics are exact counts, so even the first reading, taken before
    // anything was dumped, has the real total.
    expect(p.total).toBe(realCount);
    expect(p.current).toBeLessThanOrEqual(p.total);
    if (p.collection) expect(collections).toContain(p.collection);
    if (i === 0) continue;
    const before = readings[i - 1]!;
    expect(p.current).toBeGreaterThanOrEqual(before.current);
    expect(p.percentage).toBeGreaterThanOrEqual(before.percentage);
  }
  // Progress moved before the job's documents were all done (the small collections, done at
  // once, count too: 45 of 40 045 is a move, even at 0.0 %).
  if (moving) expect(readings.some((p) => p.current > 0 && p.current < p.total)).toBe(true);
  // Under 100 % until done, then exactly 100 % with the real count, no longer an estimate.
  expect(readings.slice(0, -1).every((p) => p.percentage < 100)).toBe(true);
  expect(readings.at(-1)).toEqual({
    current: realCount,
    total: realCount,
    percentage: 100,
    collection: expect.any(String),
    estimated: false,
  });
}

describe('live progress of a real backup and restore', () => {
  let backupId: string;

  it('a backup reports readings that move, never go back, have the real total and end at 100 %', async () => {
    const backup = await backupCompleted(owner.token, LABEL, agent);
    backupId = backup._id;
    const ofBackup = () => backupEvents.filter((e) => e.backupId === backupId);
    await eventually(async () => expect(ofBackup().map((e) => e.status)).toContain('completed'));
    // The final reading travels apart from the completion: wait for it too.
    await eventually(async () => expect(ofBackup().some((e) => e.progress?.percentage === 100)).toBe(true));
    const readings = ofBackup().flatMap((e) => (e.progress ? [e.progress] : []));
    const names = await customer().client.db(DB).listCollections({}, { nameOnly: true }).toArray();
    expectTruthful(
      readings,
      names.map((c) => c.name),
      true,
    );
    // While documents were being dumped, the shown collection was the one being dumped: the big
    // one, which mongodump starts first and finishes last.
    const midway = readings.filter((p) => p.current > 0 && p.current < p.total);
    expect(midway.map((p) => p.collection)).toContain('events');
    // Readings arrive while the backup is in progress, never as a completed or failed event.
    expect(
      ofBackup()
        .filter((e) => e.progress)
        .every((e) => e.status === 'in-progress'),
    ).toBe(true);
  });

  it('a restore of it does the same with the exact count from the backup', async () => {
    expect(backupId).toBeDefined();
    const restore = await restoreEnded(owner.token, backupId, LABEL, agent, 90_000);
    expect(restore).toMatchObject({ status: 'completed', documentsRestored: realCount, documentsFailed: 0 });
    const ofRestore = () => restoreEvents.filter((e) => e.restoreId === restore._id);
    await eventually(async () => expect(ofRestore().map((e) => e.status)).toContain('completed'));
    await eventually(async () => expect(ofRestore().some((e) => e.progress?.percentage === 100)).toBe(true));
    const readings = ofRestore().flatMap((e) => (e.progress ? [e.progress] : []));
    const names = await customer().client.db(DB).listCollections({}, { nameOnly: true }).toArray();
    expectTruthful(
      readings,
      names.map((c) => c.name),
      false,
    );
    // A restore's total is exact from the first reading: it was counted in the verified file.
    expect(readings.every((p) => p.estimated === false)).toBe(true);
  });
});
