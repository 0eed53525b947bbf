// Backup frequency and retention choices (spec §3, §5, §9) and how plan limits disable them.
import type { FrequencyName } from '../api/types';

export interface FrequencyOption {
  value: FrequencyName;
  label: string;
  hours: number;
}

export const FREQUENCY_OPTIONS: readonly FrequencyOption[] = [
  { value: 'hourly', label: 'Hourly', hours: 1 },
  { value: 'daily', label: 'Daily', hours: 24 },
  { value: 'weekly', label: 'Weekly', hours: 168 },
  { value: 'monthly', label: 'Monthly', hours: 720 },
];

export const DEFAULT_FREQUENCY: FrequencyName = 'daily';

/** Received frequency hours back to the select: 1, 24, 168, 720, anything else daily. */
export function frequencyFromHours(hours: number | null | undefined): FrequencyName {
  return FREQUENCY_OPTIONS.find((o) => o.hours === hours)?.value ?? DEFAULT_FREQUENCY;
}

/** An option is disabled when the plan's minimum interval (frequencyLimit, hours) is longer. */
export function isFrequencyDisabled(option: FrequencyOption, frequencyLimit: number | undefined): boolean {
  if (frequencyLimit === undefined) return false;
  return frequencyLimit > option.hours;
}

export interface RetentionOption {
  days: number;
  hours: number;
  label: string;
}

export const RETENTION_DAYS = [3, 7, 14, 30, 90, 180] as const;

export const RETENTION_OPTIONS: readonly RetentionOption[] = RETENTION_DAYS.map((days) => ({
  days,
  hours: days * 24,
  label: `${days} days`,
}));

/** Default retention in hours (3 days). */
export const DEFAULT_RETENTION = 72;

/** An option is disabled when the plan keeps backups fewer days (retentionLimit / 24) than it offers. */
export function isRetentionDisabled(option: RetentionOption, retentionLimit: number | undefined): boolean {
  if (retentionLimit === undefined) return false;
  return retentionLimit / 24 < option.days;
}
