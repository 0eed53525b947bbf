// A stored backup altered on the server's disk (bit flip, truncation, swapped chunks, appended
// bytes), or restored with another master key, must make the restore fail with a clear reason
// before anything in the target database changes.
import fs from 'node:fs';
import { MongoClient } from 'mongodb';
import { newUser, type TestUser } from '../helpers';
import { mutate, seedDatabase, snapshot, type Snapshot } from '../../../agent/src/testing/database-fixtures';
import {
  agentCli,
  backupCompleted,
  blobFiles,
  customerDbForFile,
  restoreEnded,
  setupAgent,
  uniqueName,
  upgradeToPro,
  type Agent,
} from './harness';

jest.setTimeout(120_000);

const LABEL = 'ledger';
const DB = uniqueName('ledger_');
/** A second database of the same agent: its backups are sealed with the same key. */
const OTHER_LABEL = 'scratch';
const OTHER_DB = uniqueName('scratch_');
/** A version 2 header: 67 bytes, then the label and the backup id (24 hex), each after its length. */
const HEADER = 67 + 1 + LABEL.length + 1 + 24;
const CHUNK = 4 + 64 * 1024 + 16; // a full chunk as written: length word, 64 KiB, tag

const customer = customerDbForFile();
let service: MongoClient;
let owner: TestUser;
let agent: Agent;
let backup: any;
let foreign: any;
let blob: string;
let original: Buffer;
let before: Snapshot;

beforeAll(async () => {
  service = await MongoClient.connect(process.env.COFFER_MONGO_URL!);
  owner = await newUser('tamper');
  await seedDatabase(customer().client, DB, { events: 1500 }); // several 64 KiB chunks
  await seedDatabase(customer().client, OTHER_DB, { events: 10 });
  // Two databases need a plan with room for both (Free has one).
  await upgradeToPro(owner);
  agent = await setupAgent(owner, [
    { label: LABEL, uri: customer().uri(DB) },
    { label: OTHER_LABEL, uri: customer().uri(OTHER_DB) },
  ]);
  // Both first backups, triggered together.
  [backup, foreign] = await Promise.all([
    backupCompleted(owner.token, LABEL, agent),
    backupCompleted(owner.token, OTHER_LABEL, agent),
  ]);
  const files = blobFiles(owner.id, backup._id);
  expect(files).toHaveLength(1);
  blob = files[0]!;
  original = fs.readFileSync(blob);
  expect(original.length).toBe(backup.size);
  expect(original.length).toBeGreaterThan(HEADER + 3 * CHUNK);
  // The database moves on after the backup: a restore that ran would visibly change it back.
  await mutate(customer().client, DB);
  before = await snapshot(customer().client, DB);
});

afterAll(async () => {
  await service?.close();
});

const blobs = () => service.db('coffer_storage').collection('blobs');

/**
 * Replaces the stored file with `bytes` (optionally recording the new size, as storage would for
 * a file that was stored that way), runs a restore through the service, then puts the original
 * back. Resolves with the finished restore record.
 */
async function restoreAltered(bytes: Buffer, opts: { recordSize?: boolean } = {}): Promise<any> {
  fs.writeFileSync(blob, bytes);
  if (opts.recordSize) await blobs().updateOne({ blobId: backup._id }, { $set: { size: bytes.length } });
  try {
    return await restoreEnded(owner.token, backup._id, LABEL, agent);
  } finally {
    fs.writeFileSync(blob, original);
    if (opts.recordSize) await blobs().updateOne({ blobId: backup._id }, { $set: { size: original.length } });
  }
}

async function expectFailedUntouched(restore: any, reason: RegExp): Promise<void> {
  expect(restore.status).toBe('failed');
  expect(restore.error).toMatch(reason);
  expect(await snapshot(customer().client, DB)).toEqual(before);
}

describe('a restore refuses an altered or foreign backup and leaves the database as it was', () => {
  it('a flipped bit in a chunk', async () => {
    const bytes = Buffer.from(original);
    bytes[HEADER + CHUNK + 100]! ^= 0x01; // inside chunk 1's ciphertext
    await expectFailedUntouched(await restoreAltered(bytes), /Chunk 1 \(at byte \d+\) is corrupt/);
  });

  it('two chunks swapped', async () => {
    const bytes = Buffer.from(original);
    original.copy(bytes, HEADER, HEADER + CHUNK, HEADER + 2 * CHUNK);
    original.copy(bytes, HEADER + CHUNK, HEADER, HEADER + CHUNK);
    await expectFailedUntouched(
      await restoreAltered(bytes),
      new RegExp(`Chunk 0 \\(at byte ${HEADER}\\) is corrupt`),
    );
  });

  it('the final chunk cut off (truncated at a chunk boundary)', async () => {
    const chunks = Math.floor((original.length - HEADER) / CHUNK);
    const bytes = original.subarray(0, HEADER + chunks * CHUNK);
    expect(bytes.length).toBeLessThan(original.length);
    await expectFailedUntouched(
      await restoreAltered(bytes, { recordSize: true }),
      /truncated: it ends after chunk \d+ and the final chunk is missing/,
    );
  });

  it('a file shorter than storage recorded (the download ends early)', async () => {
    await expectFailedUntouched(
      await restoreAltered(original.subarray(0, original.length - 1000)),
      /^The download of the backup file was cut off after \d+ of \d+ bytes/,
    );
  });

  it('bytes appended after the sealed record', async () => {
    const bytes = Buffer.concat([original, Buffer.from('appended by someone else')]);
    await expectFailedUntouched(
      await restoreAltered(bytes, { recordSize: true }),
      /24 byte\(s\) of unexpected data after its sealed record/,
    );
  });

  it("another database's backup, sealed with the same key (what a compromised server could hand over)", async () => {
    const [file] = blobFiles(owner.id, foreign._id);
    await expectFailedUntouched(
      await restoreAltered(fs.readFileSync(file!), { recordSize: true }),
      new RegExp(
        `^Refusing to restore "${LABEL}": the backup file belongs to database "${OTHER_LABEL}", not "${LABEL}"`,
      ),
    );
  });

  it('another master key on the agent', async () => {
    await agent.stop();
    const other = await agentCli(['key', 'import', '-', '--force'], agent.config, keyText());
    expect(other.code).toBe(0);
    await agent.start();
    const restore = await restoreEnded(owner.token, backup._id, LABEL, agent);
    await expectFailedUntouched(
      restore,
      // Refused in the command's acknowledgement, before anything is downloaded (restore anywhere).
      new RegExp(
        `^Refusing to restore "${LABEL}": this agent does not hold the encryption key the backup was made with \\(key fingerprint [0-9a-f]{32}; this agent's key is [0-9a-f]{32}\\)\\. Nothing was downloaded or changed\\.`,
      ),
    );
    // The stored file itself is intact: the right key still restores it.
    expect(fs.readFileSync(blob).equals(original)).toBe(true);
  });
});

/** A fresh key in the exported key-file form. */
function keyText(): string {
  const raw = Buffer.from(Array.from({ length: 32 }, () => Math.floor(Math.random() * 256)));
  return `coffer-key-v1:${raw.toString('base64url')}\n`;
}
