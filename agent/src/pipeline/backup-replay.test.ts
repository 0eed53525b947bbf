// The benchmark's stand-in for mongodump, injected as an option (`replayArchive`): a recorded
// archive goes through the whole backup pipeline (the child's stdout pipe, the walk, zstd,
// encryption, the sealed record) with no database contacted, and nothing else can switch it on.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { decryptArchive } from '../crypto/decrypt.js';
import { generateMasterKey } from '../crypto/key.js';
import { buildArchive } from '../testing/archive-builder.js';
import { runBackup } from './backup.js';

const key = generateMasterKey();
const archive = buildArchive('shop', [
  { name: 'orders', documents: Array.from({ length: 800 }, (_, i) => ({ _id: i, pad: randomBytes(48) })) },
]);
let dir: string;
let recorded: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-backup-replay-'));
  recorded = path.join(dir, 'recorded.archive');
  writeFileSync(recorded, archive);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function collect(): { sink: Writable; bytes: () => Buffer } {
  const parts: Buffer[] = [];
  const sink = new Writable({ write: (c: Buffer, _e, cb) => (parts.push(c), cb()) });
  sink.on('error', () => undefined); // a failed backup destroys its sink with the reason it throws
  return { sink, bytes: () => Buffer.concat(parts) };
}

// An unreachable server: a backup that tried mongodump or the collection check would fail
// (DB_UNREACHABLE, after the driver's server selection gives up).
const base = { uri: 'mongodb://127.0.0.1:1/', dbName: 'shop', masterKey: key, backupId: 'b-1' };

it('backs up the recorded archive instead of dumping the database', async () => {
  const out = collect();
  const result = await runBackup({ ...base, sink: out.sink, replayArchive: recorded });
  expect(result).toMatchObject({ documents: 800, archiveBytes: archive.length });
  expect(result.collections).toEqual([{ name: 'orders', documents: 800 }]);
  const opened = decryptArchive(out.bytes(), key);
  expect(opened.archive.equals(archive)).toBe(true);
  expect(opened.header.binding).toEqual({ label: 'shop', backupId: 'b-1' });
});

it('refuses a relative path before anything runs', async () => {
  const out = collect();
  await expect(runBackup({ ...base, sink: out.sink, replayArchive: 'recorded.archive' })).rejects.toThrow(
    /absolute path/,
  );
});
