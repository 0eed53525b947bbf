import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { DatabaseEntry } from '../config/config.js';
import { encryptPayload } from '../crypto/encrypt.js';
import { Compression, fingerprintHex } from '../crypto/format.js';
import { generateMasterKey } from '../crypto/key.js';
import { sha256Hex } from '../crypto/record.js';
import type { BackupOptions, BackupResult } from '../pipeline/backup.js';
import { PipelineError } from '../pipeline/errors.js';
import type { Progress } from '../pipeline/progress.js';
import { createRestoreVerifier, type RestoreOptions, type RestoreResult } from '../pipeline/restore.js';
import type { VerifyOptions } from '../pipeline/verify.js';
import { buildArchive } from '../testing/archive-builder.js';
import { drained } from '../util/streams.js';
import { LIMITS, type JobCommand, type ReportAck } from '@coffer/contracts';
import { JobRunner, type JobDeps } from './jobs.js';
import { silentLogger } from './log.js';
import { TransferError } from './transfer.js';

const BACKUP_ID = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const RESTORE_ID = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const db: DatabaseEntry = { name: 'shop', uri: 'mongodb://u:hunter2@db.local:27017/shop', db: 'shop' };
const key = generateMasterKey();

const backupCmd = (jobId = BACKUP_ID, databaseName = 'shop'): JobCommand => ({
  commandId: 'c1',
  kind: 'backup',
  jobId,
  databaseName,
});
const restoreCmd = (jobId = RESTORE_ID, databaseName = 'shop'): JobCommand => ({
  commandId: 'c2',
  kind: 'restore',
  jobId,
  databaseName,
  backupId: BACKUP_ID,
  confirm: [],
});

const progress = (current: number): Progress => ({
  current,
  total: 100,
  percentage: current,
  collection: 'c',
});

/** The upload as runBackup sees it; records when it is aborted. */
class FakeUpload extends Writable {
  bytes = 0;
  constructor(
    private readonly log: string[],
    private readonly onEnding: () => void,
  ) {
    super();
  }
  override _write(chunk: Buffer, _e: BufferEncoding, cb: () => void) {
    this.bytes += chunk.length;
    cb();
  }
  override _final(cb: () => void) {
    this.onEnding();
    this.log.push('upload ended');
    cb();
  }
  abort() {
    this.log.push('upload aborted');
  }
}

const result = (): BackupResult => ({
  collections: [{ name: 'c', documents: 3 }],
  documents: 3,
  archiveBytes: 10,
  fileBytes: 20,
  fingerprint: 'f',
  durationMs: 1,
  summary: undefined,
});

function setup(over: Partial<JobDeps> = {}) {
  const log: string[] = [];
  const emitted: Array<{ event: string; payload: Record<string, unknown> }> = [];
  const reports: Array<{ event: string; payload: Record<string, unknown> }> = [];
  let answer: () => Promise<ReportAck> = async () => ({ ok: true });
  const uploads: FakeUpload[] = [];
  const dirs: string[] = [];
  const deps: JobDeps = {
    reporter: {
      emit: (event, payload) => emitted.push({ event, payload }),
      report: async (event, payload) => {
        log.push(`report ${event}`);
        reports.push({ event, payload });
        return answer();
      },
    },
    database: (label) => (label === db.name ? db : undefined),
    masterKey: () => key,
    restorePolicy: () => ({ allowed: true, requireBinding: true }),
    openUpload: (_id, _fp, onEnding) => {
      const u = new FakeUpload(log, onEnding);
      uploads.push(u);
      return u;
    },
    download: async () => {
      log.push('download');
      return 123;
    },
    backup: async (o: BackupOptions) => {
      o.onProgress?.(progress(0));
      o.sink.end(Buffer.from('encrypted'));
      await finished(o.sink);
      return result();
    },
    restore: async (): Promise<RestoreResult> => {
      log.push('restore');
      return {
        restored: 5,
        failed: 0,
        clean: true,
        sourceDb: 'shop',
        collections: [],
        dropped: [],
        fingerprint: 'f',
        durationMs: 1,
      };
    },
    makeTempDir: async () => {
      const d = `/tmp/fake-${dirs.length}`;
      dirs.push(d);
      log.push('tempdir');
      return d;
    },
    removeDir: async (d) => {
      log.push(`removed ${d}`);
    },
    log: silentLogger,
    onChange: () => undefined,
    scrub: (t) => t.split('hunter2').join('****'),
    // Pauses of 1, 2, 4… ms, and no retries at all unless a test asks for them.
    reportRetry: { windowMs: 0, firstPauseMs: 1 },
    ...over,
  };
  const runner = new JobRunner(deps);
  return {
    runner,
    log,
    emitted,
    reports,
    uploads,
    setAnswer: (a: () => Promise<ReportAck>) => (answer = a),
  };
}

/** A backup that fails the way runBackup does: the sink is destroyed, then the error is thrown. */
const failingBackup = (error: Error) => async (o: BackupOptions) => {
  o.sink.write(Buffer.from('partial'));
  o.sink.destroy(error);
  throw error;
};

describe('command validation', () => {
  it('refuses an unknown database, a job already running, a busy database, and anything after stop', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { runner } = setup({
      backup: async (o) => {
        await gate;
        o.sink.end();
        await finished(o.sink);
        return result();
      },
    });
    expect(runner.accept(backupCmd(BACKUP_ID, 'other'))).toEqual({
      accepted: false,
      error: 'Database "other" is not configured on this agent (see coffer-agent db list)',
    });
    expect(runner.accept(backupCmd())).toEqual({ accepted: true });
    expect(runner.runningIds()).toEqual([BACKUP_ID]);
    expect(runner.accept(backupCmd())).toEqual({
      accepted: false,
      error: `This backup (${BACKUP_ID}) is already running on the agent`,
    });
    expect(runner.accept(restoreCmd())).toEqual({
      accepted: false,
      error: 'Database "shop" is busy: a backup of it is running on the agent',
    });
    release();
    await runner.idle();
    expect(runner.runningIds()).toEqual([]);
    await runner.stopAll('Agent stopped');
    expect(runner.accept(backupCmd())).toEqual({ accepted: false, error: 'Agent stopped' });
  });
});

describe('backups', () => {
  it('a successful backup ends the upload and reports nothing after it (the end completes it)', async () => {
    const { runner, log, reports, uploads } = setup();
    runner.accept(backupCmd());
    await runner.idle();
    expect(log).toEqual(['upload ended']);
    expect(reports).toEqual([]);
    expect(uploads[0]!.bytes).toBe(9);
  });

  it('a failure is reported (with its ack awaited) before the upload is aborted', async () => {
    const { runner, log, reports, setAnswer } = setup({
      backup: failingBackup(new PipelineError('TOOL_FAILED', 'mongodump exited with code 1: bad')),
    });
    let ack!: () => void;
    setAnswer(() => new Promise((r) => (ack = () => r({ ok: true }))));
    runner.accept(backupCmd());
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['report backup:failed']); // not aborted while the report is unanswered
    ack();
    await runner.idle();
    expect(log).toEqual(['report backup:failed', 'upload aborted']);
    expect(reports[0]).toEqual({
      event: 'backup:failed',
      payload: { backupId: BACKUP_ID, error: 'mongodump exited with code 1: bad' },
    });
  });

  it('still aborts the upload when the report is refused or never answered', async () => {
    for (const answer of [
      async (): Promise<ReportAck> => ({ ok: false, error: 'Backup not found' }),
      async (): Promise<ReportAck> => {
        throw new Error('operation has timed out');
      },
    ]) {
      const { runner, log, setAnswer } = setup({ backup: failingBackup(new Error('boom')) });
      setAnswer(answer);
      runner.accept(backupCmd());
      await runner.idle();
      expect(log).toEqual(['report backup:failed', 'upload aborted']);
    }
  });

  it("the server's refusal of the upload (429 storage limit) is the reported reason", async () => {
    const refusal = new TransferError(
      'The server refused the upload: Storage limit exceeded for your plan (HTTP 429)',
      429,
    );
    const { runner, reports } = setup({ backup: failingBackup(refusal) });
    runner.accept(backupCmd());
    await runner.idle();
    expect(reports[0]!.payload.error).toBe(
      'The server refused the upload: Storage limit exceeded for your plan (HTTP 429)',
    );
  });

  it('errors are scrubbed of secrets and clipped to what the server keeps', async () => {
    const { runner, reports } = setup({
      backup: failingBackup(new Error(`cannot connect with hunter2 ${'x'.repeat(5000)}`)),
    });
    runner.accept(backupCmd());
    await runner.idle();
    const error = reports[0]!.payload.error as string;
    expect(error).not.toContain('hunter2');
    expect(error.startsWith('cannot connect with ****')).toBe(true);
    expect(error).toHaveLength(LIMITS.errorText);
  });

  it("stopping the agent fails a running backup with 'Agent stopped', reported before the abort", async () => {
    const { runner, log, reports } = setup({
      backup: async (o) =>
        new Promise<BackupResult>((_resolve, reject) => {
          o.signal!.addEventListener('abort', () => {
            const e = new PipelineError('ABORTED', 'Backup of "shop" was cancelled.');
            o.sink.destroy(e);
            reject(e);
          });
        }),
    });
    runner.accept(backupCmd());
    await runner.stopAll('Agent stopped');
    expect(reports).toEqual([
      { event: 'backup:failed', payload: { backupId: BACKUP_ID, error: 'Agent stopped' } },
    ]);
    expect(log).toEqual(['report backup:failed', 'upload aborted']);
    expect(runner.runningIds()).toEqual([]);
  });
});

describe('progress', () => {
  afterEach(() => jest.useRealTimers());

  /**
   * A backup under fake timers whose pipeline the test drives: `report` a reading, `finish` the
   * upload; `sent` is the readings the server was sent.
   */
  function backupReporting() {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    let report!: (p: Progress, final?: boolean) => void;
    let finish!: () => Promise<void>;
    const { runner, emitted } = setup({
      backup: (o) =>
        new Promise<BackupResult>((resolve) => {
          report = (p, final) => o.onProgress!(p, final);
          finish = async () => {
            o.sink.end();
            await finished(o.sink);
            resolve(result());
          };
        }),
    });
    runner.accept(backupCmd());
    const sent = () => emitted.map((e) => (e.payload.progress as Progress).current);
    // The pipeline starts when the runner gets to it: call through to what it set then.
    return {
      runner,
      emitted,
      report: (p: Progress, final?: boolean) => report(p, final),
      finish: () => finish(),
      sent,
    };
  }

  it('is sent at most once a second, the newest reading last, and never after the upload ends', async () => {
    const { runner, emitted, report, finish, sent } = backupReporting();
    report(progress(1));
    report(progress(2));
    report(progress(3));
    expect(sent()).toEqual([1]);
    jest.advanceTimersByTime(999);
    expect(sent()).toEqual([1]);
    jest.advanceTimersByTime(1);
    expect(sent()).toEqual([1, 3]);
    expect(emitted[0]).toEqual({
      event: 'backup:progress',
      payload: { backupId: BACKUP_ID, progress: progress(1) },
    });
    report(progress(50));
    await finish(); // the body is complete: a pending reading must not follow
    jest.advanceTimersByTime(5000);
    report(progress(100));
    expect(sent()).toEqual([1, 3]);
    await runner.idle();
  });

  it('sends the final 100 % at once, before the upload ends, even inside the interval', async () => {
    const { runner, report, finish, sent } = backupReporting();
    report(progress(1));
    report(progress(2));
    report(progress(3), true);
    expect(sent()).toEqual([1, 3]);
    await finish();
    jest.advanceTimersByTime(5000);
    expect(sent()).toEqual([1, 3]);
    await runner.idle();
  });
});

describe('restores', () => {
  it('reports started, downloads, restores, reports completed, and removes the temporary file', async () => {
    const { runner, log, reports } = setup();
    runner.accept(restoreCmd());
    await runner.idle();
    expect(log).toEqual([
      'report restore:started',
      'tempdir',
      'download',
      'restore',
      'report restore:completed',
      'removed /tmp/fake-0',
    ]);
    expect(reports.at(-1)).toEqual({
      event: 'restore:completed',
      payload: { restoreId: RESTORE_ID, documentsRestored: 5, documentsFailed: 0 },
    });
  });

  it('downloads without waiting for the answer to restore:started, and restores only once it came', async () => {
    let downloading!: () => void;
    const downloadStarted = new Promise<void>((r) => (downloading = r));
    const { runner, log, setAnswer } = setup({
      download: async () => {
        log.push('download');
        downloading();
        return 123;
      },
    });
    let answers = 0;
    // The first answer (restore:started's) comes only once the download has begun: a download that
    // waited for it would never start.
    setAnswer(async () => {
      if (answers++ === 0) {
        await downloadStarted;
        log.push('started answered');
      }
      return { ok: true };
    });
    runner.accept(restoreCmd());
    await runner.idle();
    expect(log).toEqual([
      'report restore:started',
      'tempdir',
      'download',
      'started answered',
      'restore',
      'report restore:completed',
      'removed /tmp/fake-0',
    ]);
  });

  it('hands restore the host policy and what the command asked for: its backup and confirmations', async () => {
    const seen: RestoreOptions[] = [];
    const { runner } = setup({
      restorePolicy: () => ({ allowed: true, requireBinding: false }),
      restore: async (o: RestoreOptions) => {
        seen.push(o);
        throw new Error('stop here');
      },
    });
    runner.accept({ ...restoreCmd(), confirm: ['empty-backup'] });
    await runner.idle();
    expect(seen[0]!.guard).toEqual({
      policy: { allowed: true, requireBinding: false },
      request: { label: 'shop', backupId: BACKUP_ID, confirm: ['empty-backup'] },
    });
  });

  it('restores another label or only some collections as the command asks, the binding checked against the source', async () => {
    const seen: RestoreOptions[] = [];
    const copy: DatabaseEntry = { name: 'shop-copy', uri: 'mongodb://db.local:27017/', db: 'shop_copy' };
    const { runner } = setup({
      database: (label: string) => (label === 'shop' ? db : label === 'shop-copy' ? copy : undefined),
      restore: async (o: RestoreOptions) => {
        seen.push(o);
        throw new Error('stop here');
      },
    });
    runner.accept({ ...restoreCmd(RESTORE_ID, 'shop-copy'), sourceLabel: 'shop', collections: ['c'] });
    await runner.idle();
    expect(seen[0]).toMatchObject({
      dbName: 'shop_copy',
      label: 'shop-copy',
      // Without a verifier the source label's own entry on this agent names the dumped database.
      sourceDb: 'shop',
      collections: ['c'],
      guard: { request: { label: 'shop-copy', sourceLabel: 'shop', backupId: BACKUP_ID, confirm: [] } },
    });
  });

  it('refuses at once a backup made with another key: nothing downloaded, the reason in the refusal', async () => {
    const { runner, log } = setup();
    const answer = runner.accept({ ...restoreCmd(), keyFingerprint: 'f'.repeat(32) });
    expect(answer.accepted).toBe(false);
    expect(!answer.accepted && answer.error).toMatch(
      /^Refusing to restore "shop": this agent does not hold the encryption key the backup was made with.*coffer-agent key import FILE/,
    );
    await runner.idle();
    expect(log).toEqual([]);
    expect(runner.accept({ ...restoreCmd(), keyFingerprint: fingerprintHex(key) })).toEqual({
      accepted: true,
    });
    await runner.idle();
  });

  it('a host that turned restores off refuses at once: nothing downloaded, the reason reported', async () => {
    const { runner, log, reports } = setup({
      restorePolicy: () => ({ allowed: false, requireBinding: true }),
    });
    expect(runner.accept(restoreCmd())).toEqual({ accepted: true });
    await runner.idle();
    expect(log).toEqual(['report restore:failed']);
    expect(reports.at(-1)!.payload).toEqual({
      restoreId: RESTORE_ID,
      error:
        'Refusing to restore "shop": restores started from the dashboard are turned off on this agent. ' +
        'Nothing was changed. To allow them, run on the database host: coffer-agent restores allow',
    });
    // Backups go on: the setting is about restores only.
    runner.accept(backupCmd());
    await runner.idle();
    expect(log.at(-1)).not.toBe('report backup:failed');
  });

  it('a failed download never reaches mongorestore, is reported, and the temporary file goes', async () => {
    const { runner, log, reports } = setup({
      download: async () => {
        throw new TransferError(
          'The server refused the download: Restore is not in progress (HTTP 409)',
          409,
        );
      },
    });
    runner.accept(restoreCmd());
    await runner.idle();
    expect(log).toEqual([
      'report restore:started',
      'tempdir',
      'report restore:failed',
      'removed /tmp/fake-0',
    ]);
    expect(reports.at(-1)!.payload).toEqual({
      restoreId: RESTORE_ID,
      error: 'The server refused the download: Restore is not in progress (HTTP 409)',
    });
  });

  it('a verification failure (wrong key, damaged file) is reported with its message', async () => {
    const { runner, reports, log } = setup({
      restore: async (o: RestoreOptions) => {
        expect(o.file).toBe(`/tmp/fake-0/${RESTORE_ID}.coffer`);
        throw new Error('This backup was encrypted with a different key (fingerprint a, agent key b).');
      },
    });
    runner.accept(restoreCmd());
    await runner.idle();
    expect(reports.at(-1)!.payload.error).toBe(
      'This backup was encrypted with a different key (fingerprint a, agent key b).',
    );
    expect(log.at(-1)).toBe('removed /tmp/fake-0');
  });

  describe('verified while downloading (the real verifier)', () => {
    const archive = buildArchive('shop', [{ name: 'c', documents: [{ _id: 1 }, { _id: 2 }] }]);
    /** A backup as the agent writes it: bound to its label and id, with its sealed record. */
    const backupOf = (masterKey: Buffer, binding = { label: 'shop', backupId: BACKUP_ID }) =>
      encryptPayload(archive, {
        masterKey,
        compression: Compression.None,
        binding,
        record: () => ({
          archiveBytes: archive.length,
          archiveSha256: sha256Hex(archive),
          namespaces: [{ ns: 'shop.c', documents: 2 }],
        }),
      });
    /** Delivers `file` the way downloadRestore does: into `also` too, failing with its failure. */
    const deliver = (file: Buffer) => async (_id: string, _f: string, o: { also?: Writable }) => {
      o.also!.end(file);
      await finished(o.also!);
      return file.length;
    };

    it('a wrong key found during the download is the reported failure, and mongorestore is never reached', async () => {
      const { runner, reports, log } = setup({
        verifier: createRestoreVerifier,
        download: deliver(backupOf(generateMasterKey())),
      });
      runner.accept(restoreCmd());
      await runner.idle();
      expect(log).not.toContain('restore');
      expect(reports.at(-1)).toEqual({
        event: 'restore:failed',
        payload: {
          restoreId: RESTORE_ID,
          error: expect.stringMatching(
            /^This backup was encrypted with a different key \(fingerprint [0-9a-f]{32}, agent key [0-9a-f]{32}\)\.$/,
          ),
        },
      });
      expect(log.at(-1)).toBe('removed /tmp/fake-0');
    });

    it('a file bound to another backup is refused at its header: the download stops, restore is never reached', async () => {
      const file = Buffer.concat([
        backupOf(key, { label: 'shop', backupId: RESTORE_ID }),
        randomBytes(100_000),
      ]);
      let taken = 0;
      const { runner, reports, log } = setup({
        verifier: createRestoreVerifier,
        download: async (_id, _f, o) => {
          // Delivered in pieces, as a download is: it stops at the first piece the verifier refuses.
          for (let at = 0; at < file.length; at += 1000) {
            if (!o.also!.write(file.subarray(at, at + 1000))) await drained(o.also!);
            taken = at + 1000;
          }
          o.also!.end();
          await finished(o.also!);
          return file.length;
        },
      });
      runner.accept(restoreCmd());
      await runner.idle();
      expect(log).not.toContain('restore');
      expect(reports.at(-1)!.payload).toEqual({
        restoreId: RESTORE_ID,
        error: expect.stringMatching(
          new RegExp(
            `^Refusing to restore "shop": the backup file is backup ${RESTORE_ID}, not backup ${BACKUP_ID}`,
          ),
        ),
      });
      expect(taken).toBeLessThan(file.length / 2);
    });

    it('a good file reaches restore with its verification, so restore does not read it again', async () => {
      let handed: RestoreOptions['verified'];
      const { runner, reports } = setup({
        verifier: createRestoreVerifier,
        download: deliver(backupOf(key)),
        restore: async (o) => {
          handed = o.verified;
          return {
            restored: 2,
            failed: 0,
            clean: true,
            sourceDb: 'shop',
            collections: [],
            dropped: [],
            fingerprint: 'f',
            durationMs: 1,
          };
        },
      });
      runner.accept(restoreCmd());
      await runner.idle();
      expect(handed).toMatchObject({ sourceDb: 'shop', collections: [{ name: 'c', documents: 2 }] });
      expect(reports.at(-1)!.event).toBe('restore:completed');
    });
  });

  it('sends its outcome again while the server cannot record it, until it is recorded', async () => {
    const { runner, reports, setAnswer } = setup({ reportRetry: { windowMs: 60_000, firstPauseMs: 1 } });
    const answers: Array<() => Promise<ReportAck>> = [
      async () => ({ ok: true }), // restore:started
      async () => {
        throw new Error('operation has timed out'); // the connection was down
      },
      async () => ({ ok: false, error: 'A Coffer service is not answering right now.', retry: true }),
    ];
    setAnswer(() => (answers.shift() ?? (async () => ({ ok: true })))());
    runner.accept(restoreCmd());
    await runner.idle();
    expect(reports.map((r) => r.event)).toEqual([
      'restore:started',
      'restore:completed',
      'restore:completed',
      'restore:completed',
    ]);
    // The job counted as running (heartbeats list it) until its outcome was recorded.
    expect(runner.runningIds()).toEqual([]);
  });

  it('does not send again what the server refused for good, nor past the retry window', async () => {
    const refused = setup({ reportRetry: { windowMs: 60_000, firstPauseMs: 1 } });
    refused.setAnswer(async () => ({ ok: false, error: 'Restore not found' }));
    refused.runner.accept(restoreCmd());
    await refused.runner.idle();
    expect(refused.reports.map((r) => r.event)).toEqual(['restore:started', 'restore:completed']);

    // Unanswered, but the next try would come after the window has closed: the job ends.
    const silent = setup({ reportRetry: { windowMs: 50, firstPauseMs: 1_000 } });
    silent.setAnswer(async () => {
      throw new Error('operation has timed out');
    });
    silent.runner.accept(restoreCmd());
    await silent.runner.idle();
    expect(silent.reports.map((r) => r.event)).toEqual(['restore:started', 'restore:completed']);
  });

  it('a restore stopped inside mongorestore says the database is incomplete', async () => {
    const { runner, reports } = setup({
      restore: (o: RestoreOptions) =>
        new Promise((_r, reject) =>
          o.signal!.addEventListener('abort', () =>
            reject(
              new PipelineError(
                'ABORTED',
                'Restore of "shop" was cancelled after 7 document(s) were restored; the database is incomplete.',
              ),
            ),
          ),
        ),
    });
    runner.accept(restoreCmd());
    await new Promise((r) => setImmediate(r));
    await runner.stopAll('Agent stopped');
    expect(reports.at(-1)!.payload.error).toBe(
      'Agent stopped: Restore of "shop" was cancelled after 7 document(s) were restored; the database is incomplete.',
    );
  });
});

describe('verifications', () => {
  const VERIFY_ID = 'cccccccccccccccccccccccc';
  const expected = [{ name: 'orders', documents: 2, digest: 'a'.repeat(64), indexes: [] }];
  const verifyCmd = (): JobCommand => ({
    commandId: 'c3',
    kind: 'verify',
    jobId: VERIFY_ID,
    databaseName: 'shop',
    backupId: BACKUP_ID,
    expected,
  });
  const withTarget = { ...db, verifyTarget: 'mongodb://v:secret@verify.local:27017/admin' };

  it("downloads from the verification's route, verifies against the recorded summary and reports the comparison", async () => {
    const seen: VerifyOptions[] = [];
    const paths: Array<string | undefined> = [];
    const { runner, log, reports } = setup({
      database: (label) => (label === db.name ? withTarget : undefined),
      download: async (_id, _file, o) => {
        paths.push(o.path);
        log.push('download');
        return 1;
      },
      verify: async (o) => {
        seen.push(o);
        log.push('verify');
        return {
          verified: false,
          checked: { collections: 1, documents: 2, indexes: 0 },
          difference: { collection: 'orders', what: 'documents', expected: '2', found: '1' },
          scratchDb: 'coffer_verify_x',
          durationMs: 1,
        };
      },
    });
    expect(runner.accept(verifyCmd())).toEqual({ accepted: true });
    await runner.idle();
    // No restore:started, no restore: the source database is never restored over.
    expect(log).toEqual(['tempdir', 'download', 'verify', 'report verify:completed', 'removed /tmp/fake-0']);
    expect(paths).toEqual([`/api/agent/verifications/${VERIFY_ID}/data`]);
    expect(seen[0]).toMatchObject({
      source: { uri: db.uri, db: 'shop', label: 'shop' },
      targetUri: withTarget.verifyTarget,
      expected,
      jobId: VERIFY_ID,
      guard: { request: { label: 'shop', backupId: BACKUP_ID, confirm: [] } },
    });
    expect(reports.at(-1)).toEqual({
      event: 'verify:completed',
      payload: {
        verificationId: VERIFY_ID,
        verified: false,
        checked: { collections: 1, documents: 2, indexes: 0 },
        difference: { collection: 'orders', what: 'documents', expected: '2', found: '1' },
      },
    });
  });

  it('a verification that cannot compare reports why, scrubbed of the secrets of the verify target too', async () => {
    const { runner, reports } = setup({
      verify: async () => {
        throw new PipelineError('DB_UNREACHABLE', 'Cannot connect to mongodb://v:hunter2@verify.local');
      },
    });
    runner.accept(verifyCmd());
    await runner.idle();
    expect(reports.at(-1)).toEqual({
      event: 'verify:failed',
      payload: { verificationId: VERIFY_ID, error: 'Cannot connect to mongodb://v:****@verify.local' },
    });
  });

  it('runs beside a backup of the same database, but not beside a restore', () => {
    const gate = new Promise<void>(() => undefined);
    const { runner } = setup({
      backup: () => gate.then(result),
      verify: () => gate.then(() => ({}) as never),
    });
    expect(runner.accept(backupCmd())).toEqual({ accepted: true });
    expect(runner.accept(verifyCmd())).toEqual({ accepted: true });
    expect(runner.accept(restoreCmd())).toMatchObject({ accepted: false });
  });
});

describe('backup summaries', () => {
  it('are reported once, before the upload ends; a refusal does not fail the backup', async () => {
    const summary = [{ name: 'orders', documents: 1, digest: 'b'.repeat(64), indexes: [] }];
    const { runner, log, reports, setAnswer } = setup({
      backup: async (o: BackupOptions) => {
        await o.onSummary?.(summary);
        o.sink.end(Buffer.from('encrypted'));
        await finished(o.sink);
        return { ...result(), summary };
      },
    });
    setAnswer(async () => ({ ok: false, error: 'unknown event' }));
    runner.accept(backupCmd());
    await runner.idle();
    // The summary, which also names the collections (restore anywhere), comes before the end.
    expect(log).toEqual(['report backup:summary', 'upload ended']);
    expect(reports.filter((r) => r.event === 'backup:summary')).toEqual([
      { event: 'backup:summary', payload: { backupId: BACKUP_ID, collections: summary } },
    ]);
  });
});
