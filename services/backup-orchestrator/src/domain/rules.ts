// Pure product rules (product §3, §5, §9), kept free of I/O so unit tests pin them exactly.
import { clipErrorText, DEFAULT_FREQUENCY_HOURS, DEFAULT_RETENTION } from '@coffer/contracts';
import type { SettingsRecord } from '../store/types.js';

// The schedule values are the web app's too: one list, in @coffer/contracts.
export { FREQUENCY_OPTIONS, RETENTION_OPTIONS } from '@coffer/contracts';

export const HOUR_MS = 3_600_000;

/** A user who never saved settings: daily backups kept 3 days. */
export const DEFAULT_SETTINGS: Readonly<SettingsRecord> = {
  frequency: DEFAULT_FREQUENCY_HOURS,
  retention: DEFAULT_RETENTION,
  retentionMode: 'days',
  gfs: null,
};

/** An agent whose last heartbeat is older than this is 'offline' even if its socket looks open. */
export const OFFLINE_AFTER_MS = 5 * 60_000;

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
/** "1 hour", "24 hours": for messages that name a plan limit. */
export const hoursText = (h: number) => plural(h, 'hour');
/** "3 days"; retention limits are whole days in every plan (a fraction shows one decimal). */
export const daysText = (h: number) =>
  plural(Number.isInteger(h / 24) ? h / 24 : Number((h / 24).toFixed(1)), 'day');

/**
 * Which databases are active: enabled ones, oldest first (ties by id), up to the plan's dbLimit.
 * Disabling one lets the next enabled database in.
 */
export function activeDatabaseIds(
  databases: ReadonlyArray<{ id: string; enabled: boolean; createdAt: Date }>,
  dbLimit: number,
): Set<string> {
  const enabled = databases
    .filter((d) => d.enabled)
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  return new Set(enabled.slice(0, Math.max(0, dbLimit)).map((d) => d.id));
}

/**
 * The plan's minimum interval between backups: allowed when the latest backup that did not fail
 * started at least frequencyLimit hours ago; otherwise when the next one may start.
 */
export function backupInterval(
  latestStartedAt: Date | undefined,
  frequencyLimitHours: number,
  now: Date,
  hourMs = HOUR_MS,
): { allowed: true } | { allowed: false; nextBackupAvailable: Date } {
  if (!latestStartedAt) return { allowed: true };
  const next = new Date(latestStartedAt.getTime() + frequencyLimitHours * hourMs);
  return next.getTime() <= now.getTime() ? { allowed: true } : { allowed: false, nextBackupAvailable: next };
}

export const rateLimitMessage = (frequencyLimitHours: number) =>
  `Backup limit reached for your plan. Your plan allows one backup every ${hoursText(frequencyLimitHours)}.`;

/** The interval was used by the scheduler, not by the user: say so rather than blame their clicks. */
export const scheduledRateLimitMessage = (frequencyLimitHours: number, databaseName: string) =>
  `The scheduled backup of ${databaseName} already ran in this interval. Your plan allows one backup every ${hoursText(frequencyLimitHours)}.`;

export type AgentStatus = 'active' | 'inactive' | 'offline';

/** active: connected and heard from within the heartbeat timeout; inactive: connected, overdue up to 5 min; else offline. */
export function agentStatus(
  agent: { connected: boolean; lastSeen: Date },
  now: Date,
  heartbeatTimeoutMs: number,
): AgentStatus {
  if (!agent.connected) return 'offline';
  const silent = now.getTime() - agent.lastSeen.getTime();
  if (silent <= heartbeatTimeoutMs) return 'active';
  if (silent <= OFFLINE_AFTER_MS) return 'inactive';
  return 'offline';
}

/** Where each schedule slot starts and which slot `now` is in: slot = floor(now / frequency). */
export function scheduleSlot(now: Date, frequencyHours: number, hourMs = HOUR_MS) {
  const length = frequencyHours * hourMs;
  const slot = Math.floor(now.getTime() / length);
  return { slot, start: new Date(slot * length), end: new Date((slot + 1) * length) };
}

/**
 * A database the agent has just reported gets no automatic backup for this long (in minutes of the
 * scheduler's hour): its first backup is the user's, who was just told to press Trigger Backup and
 * would otherwise be refused by the plan's interval the scheduler used up. With no manual backup in
 * that time, the scheduler takes the first one as usual.
 */
export const FIRST_BACKUP_GRACE_MINUTES = 30;

/** When the scheduler may take a database's first automatic backup. */
export const firstAutoBackupAt = (createdAt: Date, graceMinutes: number, hourMs = HOUR_MS) =>
  new Date(createdAt.getTime() + (graceMinutes * hourMs) / 60);

/** The unique scheduleSlot value of an auto backup; the frequency keeps slots of different schedules apart. */
export const autoSlotKey = (frequencyHours: number, slot: number) => `auto:${frequencyHours}h:${slot}`;
export const manualSlotKey = (backupId: string) => `manual:${backupId}`;

/** Errors reported by agents are kept, but bounded (LIMITS.errorText, what the agent sends at most). */
export const clipError = (text: string) => clipErrorText(text);
