// What restores this agent allows, decided on the host and not by the server (issue 19): a
// compromised server chooses which file an agent downloads and may send any restore command, so
// the agent checks the file against what it was asked and what its owner configured, before the
// target database is touched. Every refusal says why and what to do, and becomes the restore's
// failure reason on the dashboard.
import { EMPTY_BACKUP_REFUSAL, type RestoreConfirmation } from '@coffer/contracts';
import type { Binding } from '../crypto/format.js';
import { PipelineError } from './errors.js';

/** The host's settings (agent config `restores`; `coffer-agent restores`). */
export interface RestorePolicy {
  /** May the server start restores on this agent at all. */
  allowed: boolean;
  /** Only backups whose file is bound to the label being restored (format version 2). */
  requireBinding: boolean;
}

/** What the restore command asked for. */
export interface RestoreRequest {
  /** The database label being restored (the target). */
  label: string;
  /**
   * The label the backup was taken of, when the server asks to restore it into another one
   * (restore anywhere); absent: the same as `label`. The file's binding must name it.
   */
  sourceLabel?: string;
  /** The backup the command names. */
  backupId: string;
  /** What the user confirmed on the dashboard. */
  confirm: readonly RestoreConfirmation[];
}

const refuse = (label: string, why: string) =>
  new PipelineError('REFUSED', `Refusing to restore "${label}": ${why}`);

/**
 * Before anything is downloaded: a restore of a backup made with another key cannot succeed, and
 * the user must know which key to bring (restore anywhere onto another agent).
 */
export function refuseOtherKey(label: string, backupKey: string | undefined, agentKey: string): void {
  if (!backupKey || backupKey === agentKey) return;
  throw refuse(
    label,
    `this agent does not hold the encryption key the backup was made with (key fingerprint ${backupKey}; ` +
      `this agent's key is ${agentKey}). Nothing was downloaded or changed. Export the key on the agent ` +
      'that made the backup (coffer-agent key export --out FILE), then run on this host: ' +
      "coffer-agent key import FILE --force (it replaces this agent's key: export that one first if it " +
      'made backups you keep)',
  );
}

/** Before anything is downloaded. */
export function refuseIfDisabled(policy: RestorePolicy, label: string): void {
  if (policy.allowed) return;
  throw refuse(
    label,
    'restores started from the dashboard are turned off on this agent. Nothing was changed. ' +
      'To allow them, run on the database host: coffer-agent restores allow',
  );
}

/**
 * Once the file has authenticated: is it the backup the command names, of this label? A file
 * bound to another backup id is refused whatever the policy: the server sent a file other than
 * the one it asked to restore.
 */
export function checkBinding(
  policy: RestorePolicy,
  request: RestoreRequest,
  binding: Binding | undefined,
): void {
  const { label } = request;
  const source = request.sourceLabel ?? label;
  if (!binding) {
    // Only the binding says which database's backup a file is: without it, a file restored into
    // another database could be any backup of this key, whatever the policy.
    if (source !== label)
      throw refuse(
        label,
        `the backup file was written by an older agent and does not name its database, so it cannot be ` +
          `restored into another database than "${source}". Nothing was changed. Restore it into "${source}", ` +
          'or choose a newer backup.',
      );
    if (!policy.requireBinding) return;
    throw refuse(
      label,
      'the backup file was written by an older agent and does not name its database, and this agent ' +
        'restores only backups bound to the database being restored. Nothing was changed. To restore ' +
        'older backups, run on the database host: coffer-agent restores binding optional',
    );
  }
  if (binding.label !== source)
    throw refuse(
      label,
      `the backup file belongs to database "${binding.label}", not "${source}". Nothing was changed. ` +
        'The server handed this agent a backup of another database.',
    );
  if (binding.backupId !== request.backupId)
    throw refuse(
      label,
      `the backup file is backup ${binding.backupId}, not backup ${request.backupId} that this restore ` +
        'asked for. Nothing was changed. The server handed this agent another file.',
    );
}

/**
 * A backup of an empty database would drop every collection of a target that holds data: only
 * when the user confirmed exactly that case.
 */
export function checkEmptyOverData(
  request: RestoreRequest,
  backupDocuments: number,
  targetDocuments: number,
): void {
  if (backupDocuments > 0 || targetDocuments === 0 || request.confirm.includes('empty-backup')) return;
  throw refuse(
    request.label,
    `${EMPTY_BACKUP_REFUSAL} (it is a backup of an empty database), and "${request.label}" holds about ` +
      `${targetDocuments} document(s) now: restoring it would delete them all. Nothing was changed. ` +
      'If that is what you want, confirm it on the dashboard (Restore History, Restore anyway).',
  );
}
