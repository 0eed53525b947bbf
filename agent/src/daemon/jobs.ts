// Runs the backups and restores the gateway asks for: one job per id, reports in the order the
// protocol requires (docs/agent-protocol.md), progress at most once a second, and a failure
// always reported to the server before the upload is cut.
import type { Writable } from 'node:stream';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabaseEntry } from '../config/config.js';
import { fingerprintHex } from '../crypto/format.js';
import type { BackupOptions, BackupResult } from '../pipeline/backup.js';
import { PipelineError } from '../pipeline/errors.js';
import type { Progress } from '../pipeline/progress.js';
import type { RestoreOptions, RestoreResult, RestoreVerifier, VerifiedBackup } from '../pipeline/restore.js';
import type { VerifyOptions, VerifyResult } from '../pipeline/verify.js';
import {
  checkBinding,
  refuseIfDisabled,
  refuseOtherKey,
  type RestorePolicy,
  type RestoreRequest,
} from '../pipeline/restore-policy.js';
import type { Binding } from '../crypto/format.js';
import {
  clipErrorText,
  verificationDownloadPath,
  type BackupSummary,
  type RestoreConfirmation,
  type RestoreTargeting,
  type AgentEventPayload,
  type CommandAck,
  type JobCommand,
  type ProgressEventName,
  type ReportAck,
  type ReportEventName,
} from '@coffer/contracts';
import type { Logger } from './log.js';
import { Throttle } from './throttle.js';

/** The socket as the jobs see it. */
export interface Reporter {
  /** Fire and forget (progress). */
  emit<E extends ProgressEventName>(event: E, payload: AgentEventPayload<E>): void;
  /** An acknowledged report; rejects when no answer came in time. */
  report<E extends ReportEventName>(event: E, payload: AgentEventPayload<E>): Promise<ReportAck>;
}

/** The upload as a job sees it: a Writable for runBackup that the job aborts after reporting. */
export interface Upload extends Writable {
  abort(): void;
}

export interface JobDeps {
  reporter: Reporter;
  database(label: string): DatabaseEntry | undefined;
  masterKey(): Buffer;
  /** The host's restore policy as configured now (config `restores`). */
  restorePolicy(): RestorePolicy;
  /** Opens the HTTP upload; `onEnding` is called when the body is complete and being ended. */
  openUpload(backupId: string, keyFingerprint: string, onEnding: () => void): Upload;
  download(
    restoreId: string,
    file: string,
    opts: {
      onProgress: (bytes: number, total: number | undefined) => void;
      signal: AbortSignal;
      /** Receives every downloaded byte too (the verifier's sink); its failure fails the download. */
      also?: Writable;
      /** The URL path (a verification's file has its own route). */
      path?: string;
    },
  ): Promise<number>;
  /**
   * Verifies a restore's file while it downloads (createRestoreVerifier). Without it, restore
   * verifies the file itself after the download (one more pass over it).
   */
  verifier?(
    masterKey: Buffer,
    opts: { checkBinding: (binding: Binding | undefined) => void },
  ): RestoreVerifier;
  backup(opts: BackupOptions): Promise<BackupResult>;
  restore(opts: RestoreOptions): Promise<RestoreResult>;
  /** Verified backups: restore into a scratch database and compare (pipeline/verify.ts). */
  verify?(opts: VerifyOptions): Promise<VerifyResult>;
  /** A fresh private (0700) directory for a restore's ciphertext. */
  makeTempDir(): Promise<string>;
  removeDir(dir: string): Promise<void>;
  log: Logger;
  /** Something worth writing to the status file happened. */
  onChange(): void;
  /** A job failed with this (reported) reason. */
  onFailed?(job: JobInfo, error: string): void;
  /** Removes secrets from a message that leaves the machine. */
  scrub(text: string): string;
  progressIntervalMs?: number;
  /** How long a job's outcome is sent again while the server cannot record it, first pause. */
  reportRetry?: { windowMs: number; firstPauseMs: number };
  now?: () => Date;
}

const REPORT_RETRY = { windowMs: 2 * 60_000, firstPauseMs: 1_000 };
const REPORT_RETRY_MAX_PAUSE_MS = 15_000;

export type JobPhase = 'dumping' | 'uploading' | 'downloading' | 'verifying' | 'restoring' | 'reporting';

export interface JobInfo {
  id: string;
  kind: 'backup' | 'restore' | 'verify';
  database: string;
  startedAt: string;
  phase: JobPhase;
  progress?: Progress;
  /** Bytes of the encrypted file downloaded so far (restores). */
  downloaded?: { bytes: number; total?: number };
}

interface Job extends JobInfo {
  /** Restores and verifications: the backup the command names; what the user confirmed. */
  backupId?: string;
  confirm?: RestoreConfirmation[];
  /** Restores: the source label, chosen collections and the backup's key fingerprint (restore anywhere). */
  targeting?: RestoreTargeting;
  /** Verifications: the summary recorded when the backup was made. */
  expected?: BackupSummary;
  abort: AbortController;
  /** Why the agent itself stopped the job ('Agent stopped'), if it did. */
  stopReason?: string;
  done: Promise<void>;
}

export class JobRunner {
  private readonly jobs = new Map<string, Job>();
  private closedReason: string | undefined;
  private readonly interval: number;
  private readonly retry: { windowMs: number; firstPauseMs: number };
  private readonly now: () => Date;

  constructor(private readonly deps: JobDeps) {
    this.interval = deps.progressIntervalMs ?? 1000;
    this.retry = deps.reportRetry ?? REPORT_RETRY;
    this.now = deps.now ?? (() => new Date());
  }

  /** Ids of the running jobs (what heartbeats report). */
  runningIds(): string[] {
    return [...this.jobs.keys()];
  }

  /** The running jobs, for the status file. */
  list(): JobInfo[] {
    return [...this.jobs.values()].map(({ id, kind, database, startedAt, phase, progress, downloaded }) => ({
      id,
      kind,
      database,
      startedAt,
      phase,
      ...(progress ? { progress } : {}),
      ...(downloaded ? { downloaded } : {}),
    }));
  }

  /**
   * Decides at once whether to take a backup or restore command (the acknowledgement), and if so
   * starts it in the background.
   */
  accept(cmd: JobCommand): CommandAck {
    if (this.closedReason) return { accepted: false, error: this.closedReason };
    const db = this.deps.database(cmd.databaseName);
    if (!db)
      return {
        accepted: false,
        error: `Database "${cmd.databaseName}" is not configured on this agent (see coffer-agent db list)`,
      };
    if (this.jobs.has(cmd.jobId))
      return { accepted: false, error: `This ${cmd.kind} (${cmd.jobId}) is already running on the agent` };
    const busy = [...this.jobs.values()].find(
      (j) => j.database === cmd.databaseName && (j.kind === 'restore' || cmd.kind === 'restore'),
    );
    if (busy)
      return {
        accepted: false,
        error: `Database "${cmd.databaseName}" is busy: a ${busy.kind} of it is running on the agent`,
      };
    if (cmd.kind === 'restore') {
      // A backup made with another key is refused at once: nothing is downloaded.
      try {
        refuseOtherKey(db.name, cmd.keyFingerprint, fingerprintHex(this.deps.masterKey()));
      } catch (e) {
        return { accepted: false, error: this.deps.scrub((e as Error).message) };
      }
    }

    const job: Job = {
      id: cmd.jobId,
      kind: cmd.kind,
      database: cmd.databaseName,
      startedAt: this.now().toISOString(),
      phase: cmd.kind === 'backup' ? 'dumping' : 'downloading',
      ...(cmd.kind === 'restore'
        ? {
            backupId: cmd.backupId,
            confirm: cmd.confirm ?? [],
            targeting: {
              sourceLabel: cmd.sourceLabel,
              collections: cmd.collections,
              keyFingerprint: cmd.keyFingerprint,
            },
          }
        : {}),
      ...(cmd.kind === 'verify' ? { backupId: cmd.backupId, expected: cmd.expected ?? [] } : {}),
      abort: new AbortController(),
      done: Promise.resolve(),
    };
    this.jobs.set(job.id, job);
    this.deps.log.info(`${cmd.kind} started`, { jobId: job.id, database: job.database });
    const run = { backup: this.runBackup, restore: this.runRestore, verify: this.runVerify }[cmd.kind];
    job.done = run
      .call(this, job, db)
      .catch((e: unknown) => this.deps.log.error(`${cmd.kind} crashed`, { jobId: job.id, err: e }))
      .finally(() => {
        this.jobs.delete(job.id);
        this.deps.onChange();
      });
    this.deps.onChange();
    return { accepted: true };
  }

  /**
   * Refuses new jobs from now on (with `reason`), stops the running ones (each reports its
   * failure with `reason`) and resolves when they have all finished reporting.
   */
  async stopAll(reason: string): Promise<void> {
    this.closedReason ??= reason;
    const running = [...this.jobs.values()];
    for (const job of running) {
      job.stopReason ??= reason;
      job.abort.abort(new Error(reason));
    }
    await Promise.all(running.map((j) => j.done));
  }

  /** Resolves when the jobs running now have finished (and reported). */
  async idle(): Promise<void> {
    await Promise.all([...this.jobs.values()].map((j) => j.done));
  }

  /** Takes commands again after stopAll (a reset or restart that happens in process). */
  reopen(): void {
    this.closedReason = undefined;
  }

  private describe(job: Job, e: unknown): string {
    let message = e instanceof Error ? e.message : String(e);
    if (job.stopReason) {
      // Say what was stopped; a restore cut short in mongorestore left an incomplete database.
      const partial = e instanceof PipelineError && e.code === 'ABORTED' && /incomplete/.test(e.message);
      message = partial ? `${job.stopReason}: ${e.message}` : job.stopReason;
    }
    message = this.deps.scrub(message).trim() || `The ${job.kind} failed`;
    // Clipped to what the server keeps (LIMITS.errorText), so the report is never refused for length.
    return clipErrorText(message);
  }

  /**
   * Sends a report and waits for the server's answer. A job's outcome must not be lost to a
   * moment in which the server cannot record it (the orchestrator restarting, the connection
   * down): unanswered reports and refusals the server marks `retry` are sent again, with growing
   * pauses, until recorded, refused for good, the agent stops the job, or two minutes have passed. Meanwhile the job stays in the heartbeat's list, so the server keeps waiting for
   * it. `once` sends a single time (restore:started: the download asks the server again anyway).
   */
  private async send<E extends ReportEventName>(
    job: Job,
    event: E,
    payload: AgentEventPayload<E>,
    opts: { once?: boolean } = {},
  ): Promise<boolean> {
    const giveUpAt = this.now().getTime() + (opts.once ? 0 : this.retry.windowMs);
    for (let attempt = 1; ; attempt++) {
      let retryable: boolean;
      try {
        const answer = await this.deps.reporter.report(event, payload);
        if (answer.ok) {
          if (attempt > 1) this.deps.log.info(`${event} recorded`, { jobId: job.id, attempt });
          return true;
        }
        this.deps.log.warn(`the server refused ${event}`, { jobId: job.id, error: answer.error, attempt });
        retryable = answer.retry === true;
      } catch (e) {
        this.deps.log.warn(`${event} was not acknowledged`, { jobId: job.id, err: e, attempt });
        retryable = true;
      }
      const pause = Math.min(REPORT_RETRY_MAX_PAUSE_MS, this.retry.firstPauseMs * 2 ** (attempt - 1));
      if (!retryable || job.abort.signal.aborted || this.now().getTime() + pause > giveUpAt) return false;
      this.deps.log.info(`sending ${event} again`, { jobId: job.id, inMs: pause });
      try {
        await sleep(pause, undefined, { signal: job.abort.signal });
      } catch {
        return false; // the agent is stopping the job
      }
    }
  }

  private progressReporter(job: Job, send: (progress: Progress) => void) {
    const throttle = new Throttle<Progress>(this.interval, send);
    return {
      throttle,
      onProgress: (p: Progress, final?: boolean) => {
        job.progress = p;
        if (job.phase === 'verifying') job.phase = 'restoring';
        if (final) throttle.flush(p);
        else throttle.push(p);
        this.deps.onChange();
      },
    };
  }

  private async runBackup(job: Job, db: DatabaseEntry): Promise<void> {
    const { deps } = this;
    const masterKey = deps.masterKey();
    const { throttle, onProgress } = this.progressReporter(job, (progress) =>
      deps.reporter.emit('backup:progress', { backupId: job.id, progress }),
    );
    let upload: Upload | undefined;
    try {
      // Nothing is sent after the body is complete: "in progress" must not follow "completed".
      upload = deps.openUpload(job.id, fingerprintHex(masterKey), () => {
        throttle.stop();
        job.phase = 'uploading';
        deps.onChange();
      });
      // runBackup destroys the sink with its error (maybe before any pipeline listens) and throws
      // it: the error is handled below, it must not surface as an unhandled 'error' event.
      upload.on('error', () => undefined);
      const result = await deps.backup({
        uri: db.uri,
        dbName: db.db,
        label: db.name,
        sink: upload,
        masterKey,
        onProgress,
        signal: job.abort.signal,
        backupId: job.id,
        // One attempt: the end of the upload waits for it, and a backup never fails for its summary.
        onSummary: async (collections) => {
          await this.send(job, 'backup:summary', { backupId: job.id, collections }, { once: true });
        },
      });
      throttle.stop();
      deps.log.info('backup completed', {
        jobId: job.id,
        database: job.database,
        documents: result.documents,
        collections: result.collections.length,
        bytes: result.fileBytes,
        durationMs: result.durationMs,
        ...result.phases,
      });
      // Nothing more to report: the end of the upload completed the backup, and the summary sent
      // before it names the collections for the restore dialog's checklist (earlier agents sent
      // them again afterwards as backup:contents, a write that could race the completion's).
    } catch (e) {
      throttle.stop();
      job.phase = 'reporting';
      const error = this.describe(job, e);
      deps.log.error('backup failed', { jobId: job.id, database: job.database, error });
      deps.onFailed?.(job, error);
      // The order matters (protocol): the reason reaches the server first, then the upload is cut,
      // so storage discards the partial file and the backup shows this reason.
      await this.send(job, 'backup:failed', { backupId: job.id, error });
      upload?.abort();
    }
  }

  /**
   * The database a backup of another label was dumped from. A file bound to that label (checked
   * before this is used) names it in its authenticated archive, so a backup made on another agent
   * restores too; without a verified file, this agent's own entry for the label.
   */
  private sourceDbOf(sourceLabel: string, verified: VerifiedBackup | undefined): string | undefined {
    if (verified?.binding && verified.sourceDb !== undefined) return verified.sourceDb;
    return this.deps.database(sourceLabel)?.db;
  }

  /**
   * Downloads the job's backup file into `dir`, verifying it as it arrives: a wrong key, a damaged
   * file or a file bound to another backup stops the download.
   */
  private async fetchVerified(
    job: Job,
    dir: string,
    policy: RestorePolicy,
    request: RestoreRequest,
    urlPath?: string,
  ): Promise<{ file: string; masterKey: Buffer; verified: VerifiedBackup | undefined }> {
    const { deps } = this;
    const file = path.join(dir, `${job.id}.coffer`);
    job.abort.signal.throwIfAborted();
    const masterKey = deps.masterKey();
    const verifier = deps.verifier?.(masterKey, {
      checkBinding: (binding) => checkBinding(policy, request, binding),
    });
    const downloadStarted = Date.now();
    const bytes = await deps.download(job.id, file, {
      signal: job.abort.signal,
      onProgress: (n, total) => {
        job.downloaded = { bytes: n, ...(total !== undefined ? { total } : {}) };
        deps.onChange();
      },
      ...(verifier ? { also: verifier.sink } : {}),
      ...(urlPath ? { path: urlPath } : {}),
    });
    deps.log.info('backup file downloaded', {
      jobId: job.id,
      bytes,
      durationMs: Date.now() - downloadStarted,
    });
    job.phase = 'verifying';
    deps.onChange();
    const verified = await verifier?.result;
    if (verified) {
      job.phase = 'restoring';
      deps.onChange();
    }
    return { file, masterKey, verified };
  }

  /**
   * A verification (verified backups): the backup restored into a scratch database and compared
   * with the summary recorded when it was made. A difference is a completed verification that
   * says what differs; a verification that could not compare (a damaged file, a refused target)
   * fails with the reason. Nothing of the source database is touched.
   */
  private async runVerify(job: Job, db: DatabaseEntry): Promise<void> {
    const { deps } = this;
    const { throttle, onProgress } = this.progressReporter(job, (progress) =>
      deps.reporter.emit('verify:progress', { verificationId: job.id, progress }),
    );
    let dir: string | undefined;
    try {
      if (!deps.verify) throw new PipelineError('REFUSED', 'This agent cannot verify backups');
      // The file must be the commanded backup of this label, as for a restore; the host's
      // restores on/off switch is not asked: nothing is restored over the database.
      const policy = { ...deps.restorePolicy(), allowed: true };
      const request = { label: db.name, backupId: job.backupId ?? '', confirm: [] };
      dir = await deps.makeTempDir();
      const { file, masterKey, verified } = await this.fetchVerified(
        job,
        dir,
        policy,
        request,
        verificationDownloadPath(job.id),
      );
      const result = await deps.verify({
        source: { uri: db.uri, db: db.db, label: db.name },
        ...(db.verifyTarget ? { targetUri: db.verifyTarget } : {}),
        file,
        masterKey,
        expected: job.expected ?? [],
        jobId: job.id,
        onProgress,
        signal: job.abort.signal,
        ...(verified ? { verified } : {}),
        guard: { policy, request },
      });
      throttle.stop();
      job.phase = 'reporting';
      deps.log.info('verification finished', {
        jobId: job.id,
        database: job.database,
        verified: result.verified,
        collections: result.checked.collections,
        documents: result.checked.documents,
        durationMs: result.durationMs,
      });
      await this.send(job, 'verify:completed', {
        verificationId: job.id,
        verified: result.verified,
        checked: result.checked,
        ...(result.difference ? { difference: result.difference } : {}),
      });
    } catch (e) {
      throttle.stop();
      job.phase = 'reporting';
      const error = this.describe(job, e);
      deps.log.error('verification failed', { jobId: job.id, database: job.database, error });
      deps.onFailed?.(job, error);
      await this.send(job, 'verify:failed', { verificationId: job.id, error });
    } finally {
      if (dir) await deps.removeDir(dir).catch(() => undefined);
    }
  }

  private async runRestore(job: Job, db: DatabaseEntry): Promise<void> {
    const { deps } = this;
    const { throttle, onProgress } = this.progressReporter(job, (progress) =>
      deps.reporter.emit('restore:progress', { restoreId: job.id, progress }),
    );
    let dir: string | undefined;
    try {
      // Read once per restore: the host's answer at the time the command came is the one that holds.
      const policy = deps.restorePolicy();
      refuseIfDisabled(policy, db.name);
      // Not waited for: the download asks the server again (and starts the restore there too), so
      // its answer would only delay the download by a round trip. Refused or unanswered, the
      // download is refused if the restore may not run: the database is never touched without the
      // server's consent.
      // send() logs a refusal or a missing answer.
      const started = this.send(job, 'restore:started', { restoreId: job.id }, { once: true });
      dir = await deps.makeTempDir();
      const { sourceLabel, collections } = job.targeting ?? {};
      const request = {
        label: db.name,
        ...(sourceLabel ? { sourceLabel } : {}),
        backupId: job.backupId ?? '',
        confirm: job.confirm ?? [],
      };
      const { file, masterKey, verified } = await this.fetchVerified(job, dir, policy, request).finally(
        () => started,
      );
      const result = await deps.restore({
        uri: db.uri,
        dbName: db.db,
        label: db.name,
        file,
        masterKey,
        onProgress,
        signal: job.abort.signal,
        ...(verified ? { verified } : {}),
        guard: { policy, request },
        ...(collections ? { collections } : {}),
        ...(sourceLabel && sourceLabel !== db.name
          ? { sourceDb: this.sourceDbOf(sourceLabel, verified) }
          : {}),
      });
      throttle.stop();
      job.phase = 'reporting';
      deps.log.info('restore finished', {
        jobId: job.id,
        database: job.database,
        documentsRestored: result.restored,
        documentsFailed: result.failed,
        droppedCollections: result.dropped.length,
        durationMs: result.durationMs,
        ...result.phases,
      });
      const recorded = await this.send(job, 'restore:completed', {
        restoreId: job.id,
        documentsRestored: result.restored,
        documentsFailed: result.failed,
      });
      deps.log.info('restore reported', { jobId: job.id, recorded });
    } catch (e) {
      throttle.stop();
      job.phase = 'reporting';
      const error = this.describe(job, e);
      deps.log.error('restore failed', { jobId: job.id, database: job.database, error });
      deps.onFailed?.(job, error);
      await this.send(job, 'restore:failed', { restoreId: job.id, error });
    } finally {
      if (dir) {
        await deps
          .removeDir(dir)
          .catch((e: unknown) => deps.log.warn('could not remove the temporary restore file', { err: e }));
      }
    }
  }
}
