// Gateway → agent: `command` messages, which the agent acknowledges at once (CommandAck) and then
// works on. Parsed by the agent before anything runs, so a malformed command is refused with a reason.
import { isObjectId } from '../ids.js';
import { DATABASE_LABEL_PATTERN, KEY_FINGERPRINT_PATTERN, LIMITS } from '../limits.js';
import { backupSummarySchema, type BackupSummary } from './verification.js';

export const COMMAND_KINDS = ['backup', 'restore', 'restart', 'update', 'reset', 'verify'] as const;
export type CommandKind = (typeof COMMAND_KINDS)[number];
export type JobCommandKind = Extract<CommandKind, 'backup' | 'restore' | 'verify'>;

/**
 * What the user confirmed for one restore, on the dashboard, beyond the restore itself; the agent
 * refuses these cases unless the command carries the confirmation (docs/agent-protocol.md).
 * `empty-backup`: the backup holds no documents and the target database does.
 */
export const RESTORE_CONFIRMATIONS = ['empty-backup'] as const;
export type RestoreConfirmation = (typeof RESTORE_CONFIRMATIONS)[number];

/**
 * The words the agent's refusal of an empty backup over a non-empty database starts its reason
 * with, so the dashboard can offer to confirm exactly that case (isEmptyBackupRefusal).
 */
export const EMPTY_BACKUP_REFUSAL = 'this backup holds no documents';
export const isEmptyBackupRefusal = (error: string | null | undefined): boolean =>
  !!error && error.includes(EMPTY_BACKUP_REFUSAL);

export interface CommandMessage {
  commandId: string;
  kind: CommandKind;
  /** The backup or restore id, for job commands. */
  jobId?: string;
  databaseName?: string;
  /** Restore commands: the backup to restore (the agent checks the file is that backup). */
  backupId?: string;
  /** Restore commands: what the user confirmed (absent: nothing). */
  confirm?: RestoreConfirmation[];
  /**
   * Restore commands: the label of the database the backup was taken of, when it is restored into
   * another one (`databaseName` is the target). The file's binding is checked against it.
   */
  sourceLabel?: string;
  /** Restore commands: restore only these collections of the backup (absent: all of them). */
  collections?: string[];
  /**
   * Restore commands: the fingerprint of the key the backup was made with, as the server recorded
   * it; an agent holding another key refuses the restore before downloading anything.
   */
  keyFingerprint?: string;
  /** Verify commands: the backup's summary as recorded when it was made (what the restore must match). */
  expected?: BackupSummary;
}

export type JobCommand = CommandMessage & { kind: JobCommandKind; jobId: string; databaseName: string };
export type RestoreCommand = JobCommand & {
  kind: 'restore';
  backupId: string;
  confirm: RestoreConfirmation[];
};

/** The restore options beyond the spec's (restore anywhere): what a command carries of them. */
export type RestoreTargeting = Pick<CommandMessage, 'sourceLabel' | 'collections' | 'keyFingerprint'>;

/**
 * A collection name a restore may choose: what MongoDB allows in a name (no '$', no NUL, not
 * empty), bounded. Anything else never reaches mongorestore's namespace patterns.
 */
export const isCollectionName = (s: unknown): s is string =>
  typeof s === 'string' &&
  s.length > 0 &&
  s.length <= LIMITS.collectionName &&
  !s.includes('$') &&
  !s.includes('\0') &&
  !s.startsWith('system.');

/** Parses a restore command's targeting fields; the reason when one is malformed. */
function parseTargeting(c: Record<string, unknown>): { targeting: RestoreTargeting } | { error: string } {
  const t: RestoreTargeting = {};
  if (c.sourceLabel !== undefined) {
    if (typeof c.sourceLabel !== 'string' || !DATABASE_LABEL_PATTERN.test(c.sourceLabel))
      return { error: 'Invalid restore command: sourceLabel must be a database label' };
    t.sourceLabel = c.sourceLabel;
  }
  if (c.collections !== undefined) {
    const list = c.collections;
    if (!Array.isArray(list) || list.length === 0 || list.length > LIMITS.collectionsPerBackup)
      return { error: 'Invalid restore command: collections must be a non-empty list' };
    if (!list.every(isCollectionName))
      return { error: 'Invalid restore command: collections holds an invalid collection name' };
    t.collections = [...new Set(list)];
  }
  if (c.keyFingerprint !== undefined) {
    if (typeof c.keyFingerprint !== 'string' || !KEY_FINGERPRINT_PATTERN.test(c.keyFingerprint))
      return { error: 'Invalid restore command: keyFingerprint is malformed' };
    t.keyFingerprint = c.keyFingerprint;
  }
  return { targeting: t };
}
/** Restores the backup into a scratch database and compares it with `expected` (verified backups). */
export type VerifyCommand = JobCommand & { kind: 'verify'; backupId: string; expected: BackupSummary };

/** The agent's answer to a command: taken, or refused with a reason the user can act on. */
export type CommandAck = { accepted: true } | { accepted: false; error: string };

/** No acknowledgement within this time fails the job with 'Agent unreachable: …'. */
export const COMMAND_ACK_TIMEOUT_MS = 10_000;

export const isJobCommand = (c: CommandMessage): c is JobCommand =>
  c.kind === 'backup' || c.kind === 'restore' || c.kind === 'verify';

/** Parses an incoming command; returns the command or the reason to refuse it. */
export function parseCommand(raw: unknown): { command: CommandMessage } | { error: string } {
  if (!raw || typeof raw !== 'object') return { error: 'Invalid command' };
  const c = raw as Record<string, unknown>;
  const kind = c.kind;
  if (typeof kind !== 'string' || !(COMMAND_KINDS as readonly string[]).includes(kind))
    return { error: `Unknown command kind ${JSON.stringify(kind ?? null)}` };
  const commandId = typeof c.commandId === 'string' ? c.commandId : '';
  if (kind === 'backup' || kind === 'restore' || kind === 'verify') {
    if (!isObjectId(c.jobId)) return { error: `Invalid ${kind} command: jobId must be a 24-hex id` };
    if (typeof c.databaseName !== 'string' || !c.databaseName.trim())
      return { error: `Invalid ${kind} command: databaseName is missing` };
    const job = { commandId, kind: kind as JobCommandKind, jobId: c.jobId, databaseName: c.databaseName };
    if (kind === 'backup') return { command: job };
    if (!isObjectId(c.backupId)) return { error: `Invalid ${kind} command: backupId must be a 24-hex id` };
    if (kind === 'verify') {
      const expected = backupSummarySchema.safeParse(c.expected);
      if (!expected.success) return { error: 'Invalid verify command: expected is not a backup summary' };
      return { command: { ...job, backupId: c.backupId, expected: expected.data } };
    }
    if (c.confirm !== undefined && !Array.isArray(c.confirm))
      return { error: 'Invalid restore command: confirm must be a list' };
    // A confirmation this agent does not know grants nothing: it is dropped, not refused.
    const confirm = ((c.confirm ?? []) as unknown[]).filter((x): x is RestoreConfirmation =>
      (RESTORE_CONFIRMATIONS as readonly unknown[]).includes(x),
    );
    const parsed = parseTargeting(c);
    if ('error' in parsed) return parsed;
    return {
      command: { ...job, backupId: c.backupId, confirm: [...new Set(confirm)], ...parsed.targeting },
    };
  }
  return { command: { commandId, kind: kind as CommandKind } };
}
