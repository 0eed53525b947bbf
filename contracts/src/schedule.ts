// Backup schedule values (product §3 Settings): frequencies travel as names from the web app
// and are stored as hours; retention is hours, one of a fixed list.

/** Frequency names and their hours. */
export const FREQUENCY_HOURS = { hourly: 1, daily: 24, weekly: 168, monthly: 720 } as const;
export type FrequencyName = keyof typeof FREQUENCY_HOURS;
export const FREQUENCY_NAMES = [
  'hourly',
  'daily',
  'weekly',
  'monthly',
] as const satisfies readonly FrequencyName[];

/** Frequencies in hours, most frequent first. */
export const FREQUENCY_OPTIONS = [1, 24, 168, 720] as const;
/** Retention options in hours: 3, 7, 14, 30, 90 and 180 days. */
export const RETENTION_OPTIONS = [72, 168, 336, 720, 2160, 4320] as const;

/** A user who never saved settings: daily backups, kept 3 days. */
export const DEFAULT_FREQUENCY: FrequencyName = 'daily';
export const DEFAULT_FREQUENCY_HOURS = FREQUENCY_HOURS[DEFAULT_FREQUENCY];
export const DEFAULT_RETENTION = 72;

/** Stored hours back to a name: 1, 24, 168, 720; anything else reads as daily (product §3). */
export function frequencyNameOf(hours: number | null | undefined): FrequencyName {
  return FREQUENCY_NAMES.find((n) => FREQUENCY_HOURS[n] === hours) ?? DEFAULT_FREQUENCY;
}

export const isFrequencyHours = (hours: number): boolean =>
  (FREQUENCY_OPTIONS as readonly number[]).includes(hours);
export const isRetentionHours = (hours: number): boolean =>
  (RETENTION_OPTIONS as readonly number[]).includes(hours);
