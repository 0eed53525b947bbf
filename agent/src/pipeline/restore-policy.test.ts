// The agent's restore policy: each refusal with its reason, the confirmation that overrides only
// its own case, and runRestore applying the policy to a real bound (version 2) file before any
// database is contacted. The restore runs with its archive into a discarding sink (`discardArchive`) with an
// unreachable server: a check that came too late would fail with DB_UNREACHABLE instead.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createEncryptor, encryptPayload } from '../crypto/encrypt.js';
import { Compression } from '../crypto/format.js';
import { generateMasterKey } from '../crypto/key.js';
import { encodeRecord, sha256Hex, type RecordNamespace } from '../crypto/record.js';
import { buildArchive } from '../testing/archive-builder.js';
import { archiveNamespaces, ArchiveScanner } from './archive.js';
import { PipelineError } from './errors.js';
import { createRestoreVerifier, runRestore } from './restore.js';
import {
  checkBinding,
  checkEmptyOverData,
  refuseIfDisabled,
  refuseOtherKey,
  type RestorePolicy,
  type RestoreRequest,
} from './restore-policy.js';

const BACKUP = '65a1b2c3d4e5f60718293a4b';
const OTHER_BACKUP = '65a1b2c3d4e5f60718293a4c';
const strict: RestorePolicy = { allowed: true, requireBinding: true };
const lenient: RestorePolicy = { allowed: true, requireBinding: false };
const request = (over: Partial<RestoreRequest> = {}): RestoreRequest => ({
  label: 'shop',
  backupId: BACKUP,
  confirm: [],
  ...over,
});

function refusal(f: () => void): PipelineError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(PipelineError);
    expect((e as PipelineError).code).toBe('REFUSED');
    return e as PipelineError;
  }
  throw new Error('not refused');
}

describe('the restore policy', () => {
  it('refuses every restore while restores are turned off, and says how to allow them', () => {
    expect(refusal(() => refuseIfDisabled({ allowed: false, requireBinding: true }, 'shop')).message).toBe(
      'Refusing to restore "shop": restores started from the dashboard are turned off on this agent. ' +
        'Nothing was changed. To allow them, run on the database host: coffer-agent restores allow',
    );
    expect(() => refuseIfDisabled(strict, 'shop')).not.toThrow();
  });

  it('refuses a file bound to another label, whatever the policy', () => {
    for (const policy of [strict, lenient])
      expect(
        refusal(() => checkBinding(policy, request(), { label: 'billing', backupId: BACKUP })).message,
      ).toBe(
        'Refusing to restore "shop": the backup file belongs to database "billing", not "shop". ' +
          'Nothing was changed. The server handed this agent a backup of another database.',
      );
  });

  it('refuses a file bound to another backup than the command names, whatever the policy', () => {
    for (const policy of [strict, lenient])
      expect(
        refusal(() => checkBinding(policy, request(), { label: 'shop', backupId: OTHER_BACKUP })).message,
      ).toBe(
        `Refusing to restore "shop": the backup file is backup ${OTHER_BACKUP}, not backup ${BACKUP} ` +
          'that this restore asked for. Nothing was changed. The server handed this agent another file.',
      );
  });

  it('refuses an unbound (version 1) file only when the policy requires a binding', () => {
    expect(refusal(() => checkBinding(strict, request(), undefined)).message).toMatch(
      /^Refusing to restore "shop": the backup file was written by an older agent and does not name its database.*coffer-agent restores binding optional$/,
    );
    expect(() => checkBinding(lenient, request(), undefined)).not.toThrow();
    expect(() => checkBinding(strict, request(), { label: 'shop', backupId: BACKUP })).not.toThrow();
  });

  it('refuses an empty backup over a database that holds documents, unless exactly that was confirmed', () => {
    expect(refusal(() => checkEmptyOverData(request(), 0, 120)).message).toBe(
      'Refusing to restore "shop": this backup holds no documents (it is a backup of an empty database), ' +
        'and "shop" holds about 120 document(s) now: restoring it would delete them all. Nothing was ' +
        'changed. If that is what you want, confirm it on the dashboard (Restore History, Restore anyway).',
    );
    expect(() => checkEmptyOverData(request({ confirm: ['empty-backup'] }), 0, 120)).not.toThrow();
    expect(() => checkEmptyOverData(request(), 0, 0)).not.toThrow(); // nothing to lose
    expect(() => checkEmptyOverData(request(), 5, 120)).not.toThrow(); // not an empty backup
  });

  it('the confirmation overrides only its own case', () => {
    const confirmed = request({ confirm: ['empty-backup'] });
    expect(() => checkBinding(strict, confirmed, { label: 'billing', backupId: BACKUP })).toThrow(
      PipelineError,
    );
    expect(() => checkBinding(strict, confirmed, { label: 'shop', backupId: OTHER_BACKUP })).toThrow(
      PipelineError,
    );
    expect(() => checkBinding(strict, confirmed, undefined)).toThrow(PipelineError);
  });
});

describe('restoring into another label (restore anywhere)', () => {
  const elsewhere = request({ label: 'shop-copy', sourceLabel: 'shop' });

  it("checks the file's binding against the source label the server names, not the target", () => {
    for (const policy of [strict, lenient]) {
      expect(() => checkBinding(policy, elsewhere, { label: 'shop', backupId: BACKUP })).not.toThrow();
      expect(
        refusal(() => checkBinding(policy, elsewhere, { label: 'shop-copy', backupId: BACKUP })).message,
      ).toBe(
        'Refusing to restore "shop-copy": the backup file belongs to database "shop-copy", not "shop". ' +
          'Nothing was changed. The server handed this agent a backup of another database.',
      );
      expect(() => checkBinding(policy, elsewhere, { label: 'shop', backupId: OTHER_BACKUP })).toThrow(
        /not backup 65a1b2c3d4e5f60718293a4b/,
      );
    }
  });

  it('refuses an unbound file into another label even under the lenient policy', () => {
    for (const policy of [strict, lenient])
      expect(refusal(() => checkBinding(policy, elsewhere, undefined)).message).toMatch(
        /^Refusing to restore "shop-copy": the backup file was written by an older agent and does not name its database, so it cannot be restored into another database than "shop"\./,
      );
  });

  it('is decided by the policy of the host for the target label', () => {
    expect(
      refusal(() => refuseIfDisabled({ allowed: false, requireBinding: false }, 'shop-copy')).message,
    ).toMatch(/^Refusing to restore "shop-copy": restores started from the dashboard are turned off/);
  });

  it('refuses a backup made with another key, naming both fingerprints and coffer-agent key import', () => {
    const msg = refusal(() => refuseOtherKey('dr', 'aaaa', 'bbbb')).message;
    expect(msg).toMatch(
      /^Refusing to restore "dr": this agent does not hold the encryption key the backup was made with \(key fingerprint aaaa; this agent's key is bbbb\)\. Nothing was downloaded or changed\./,
    );
    expect(msg).toContain('coffer-agent key import FILE');
    expect(() => refuseOtherKey('dr', 'aaaa', 'aaaa')).not.toThrow();
    expect(() => refuseOtherKey('dr', undefined, 'aaaa')).not.toThrow(); // older servers name no key
  });
});

describe('runRestore with the policy', () => {
  const key = generateMasterKey();
  const archive = buildArchive('shop', [
    { name: 'orders', documents: Array.from({ length: 500 }, (_, i) => ({ _id: i, pad: randomBytes(32) })) },
  ]);
  let dir: string;
  let namespaces: RecordNamespace[];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-restore-policy-'));
    const scanner = new ArchiveScanner({ strict: true });
    await pipeline(Readable.from([archive]), scanner, new Writable({ write: (_c, _e, cb) => cb() }));
    namespaces = archiveNamespaces(scanner);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  async function boundFile(label: string, backupId: string): Promise<string> {
    const parts: Buffer[] = [];
    const { stream } = createEncryptor({
      masterKey: key,
      binding: { label, backupId },
      namespaces: () => namespaces,
    });
    await pipeline(
      Readable.from([archive]),
      stream,
      new Writable({ write: (c: Buffer, _e, cb) => (parts.push(c), cb()) }),
    );
    const file = path.join(dir, `${label}-${backupId}-${randomBytes(3).toString('hex')}.coffer`);
    writeFileSync(file, Buffer.concat(parts));
    return file;
  }

  const restore = (file: string, policy: RestorePolicy, req = request()) =>
    runRestore({
      uri: 'mongodb://127.0.0.1:1/',
      dbName: 'shop',
      label: 'shop',
      file,
      masterKey: key,
      guard: { policy, request: req },
      discardArchive: true,
    });

  it('restores the commanded backup of this label', async () => {
    await expect(restore(await boundFile('shop', BACKUP), strict)).resolves.toMatchObject({
      restored: 500,
      sourceDb: 'shop',
    });
  });

  it('refuses another label or another backup before the database is contacted', async () => {
    await expect(restore(await boundFile('billing', BACKUP), strict)).rejects.toMatchObject({
      code: 'REFUSED',
      message: expect.stringContaining('belongs to database "billing", not "shop"'),
    });
    await expect(restore(await boundFile('shop', OTHER_BACKUP), lenient)).rejects.toMatchObject({
      code: 'REFUSED',
      message: expect.stringContaining(`is backup ${OTHER_BACKUP}, not backup ${BACKUP}`),
    });
  });

  it('refuses an older unbound file under the strict policy and restores it under the lenient one', async () => {
    const v1 = path.join(dir, 'v1.coffer');
    writeFileSync(v1, encryptPayload(archive, { masterKey: key, compression: Compression.None }));
    await expect(restore(v1, strict)).rejects.toMatchObject({ code: 'REFUSED' });
    await expect(restore(v1, lenient)).resolves.toMatchObject({ restored: 500 });
  });

  it('the restore checks the archive against the sealed record: other counts are refused', async () => {
    const lying = encryptPayload(archive, {
      masterKey: key,
      compression: Compression.None,
      binding: { label: 'shop', backupId: BACKUP },
      recordBytes: () =>
        encodeRecord({
          archiveBytes: archive.length,
          archiveSha256: sha256Hex(archive),
          namespaces: [{ ns: 'shop.orders', documents: 499 }],
        }),
    });
    // The verification only authenticates a bound file (the record is the writer's word, sealed
    // under the key); the one pass into the restore finds the archive holds another count.
    const verifier = createRestoreVerifier(key);
    await pipeline(Readable.from([lying]), verifier.sink);
    await expect(verifier.result).resolves.toMatchObject({ documents: 499 });
    const file = path.join(dir, 'lying.coffer');
    writeFileSync(file, lying);
    await expect(restore(file, strict)).rejects.toMatchObject({ code: 'BAD_RECORD' });
  });
});
