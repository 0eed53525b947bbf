// Pure dashboard logic (product §2 Dashboard, §8): summary numbers, the database to back up, the 429 text.
import type { Backup, Database } from '../../api/generated';

export const DEFAULT_DATABASE = 'production-db';
export const INACTIVE_SUFFIX = '(Inactive - Plan Limit Exceeded)';

export interface BackupStats {
  total: number;
  failures: number;
  /** pending or in progress: neither a success nor a failure yet */
  running: number;
  /** whole percent of the finished backups that completed; 0 without backups, null while none finished */
  successRate: number | null;
  lastBackup: string | null;
}

/**
 * Completed / total as a whole percent, failures counted; the list is newest first. A backup that
 * is still running is not counted against the rate ('50 %, 0 failures' while the second backup ran
 * read as a failure that was not there): the rate is over the backups that have finished.
 */
export function backupStats(
  backups: readonly Pick<Backup, 'status' | 'timestamp' | 'createdAt'>[],
): BackupStats {
  const total = backups.length;
  const completed = backups.filter((b) => b.status === 'completed').length;
  const failures = backups.filter((b) => b.status === 'failed').length;
  const running = backups.filter((b) => b.status === 'pending' || b.status === 'in-progress').length;
  const finished = completed + failures;
  const newest = backups[0];
  return {
    total,
    failures,
    running,
    successRate: total === 0 ? 0 : finished === 0 ? null : Math.round((completed / finished) * 100),
    lastBackup: newest ? newest.timestamp || newest.createdAt : null,
  };
}

/**
 * The database a backup goes to: the user's choice while it is active, else the first active one.
 * 'production-db' only stands in until the list loads (product §2); once it has loaded, only databases
 * an agent registered count, so with none (or none active) there is nothing to back up: ''.
 */
export function pickDatabase(databases: readonly Database[] | undefined, chosen: string | null): string {
  if (!databases) return DEFAULT_DATABASE;
  if (chosen && databases.some((d) => d.name === chosen && d.isActive)) return chosen;
  return databases.find((d) => d.isActive)?.name ?? '';
}

/** The agent's platform ('linux-x64', 'win32-x64') as the family whose command to show. */
export const platformFamily = (platform: string): 'windows' | 'linux' =>
  /^win/i.test(platform) ? 'windows' : 'linux';

/**
 * How to add a database on the agent's machine (agent CLI: `db add NAME --uri URI|-`). `--uri -`
 * asks for the connection string, so it stays out of shell history and never reaches Coffer.
 * install.sh puts the agent on the PATH and its configuration where root finds it; install.ps1
 * installs it under Program Files.
 */
export function dbAddCommand(family: 'windows' | 'linux'): string {
  return family === 'windows'
    ? `& "$env:ProgramFiles\\Coffer\\coffer-agent.exe" db add NAME --uri -`
    : 'sudo coffer-agent db add NAME --uri -';
}

/** One command per platform family the user's agents run on; Linux when no agent is known. */
export function dbAddCommands(agents: readonly { platform: string }[] | undefined): string[] {
  const families = new Set((agents ?? []).map((a) => platformFamily(a.platform)));
  if (families.size === 0) families.add('linux');
  return (['linux', 'windows'] as const).filter((f) => families.has(f)).map(dbAddCommand);
}

export const DISABLED_SUFFIX = '(Disabled in Settings)';

/** Over the plan: enabled by the user, but past the plan's dbLimit (a disabled one is the user's choice). */
export const overPlan = (db: Pick<Database, 'isActive' | 'enabled'>) => !db.isActive && db.enabled !== false;

/**
 * Selector label: databases over the plan carry '(Inactive - Plan Limit Exceeded)'; ones the user
 * disabled say so instead, since the plan has nothing to do with them.
 */
export function databaseOptionLabel(db: Pick<Database, 'name' | 'isActive' | 'enabled'>): string {
  if (db.isActive) return db.name;
  return `${db.name} ${overPlan(db) ? INACTIVE_SUFFIX : DISABLED_SUFFIX}`;
}

/** 'Next backup available at {time} on {date}.' for the 429 toast; null without a usable date. */
export function nextBackupText(iso: string | undefined | null): string | null {
  if (!iso) return null;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return null;
  const time = d.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' });
  const date = d.toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric' });
  return `Next backup available at ${time} on ${date}.`;
}

/** The 429 toast text: the server's message, then when the next backup is possible. */
export function rateLimitDescription(
  message: string | undefined,
  nextBackupAvailable: string | undefined,
): string {
  return [message, nextBackupText(nextBackupAvailable)].filter(Boolean).join(' ');
}
