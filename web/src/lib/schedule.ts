// Backup frequency and retention choices (product §3, §5, §9) and how plan limits disable them. The
// values are the service's (@coffer/contracts); this adds labels and the plan rules of the form.
import {
  DEFAULT_RETENTION,
  FREQUENCY_HOURS,
  FREQUENCY_NAMES,
  DEFAULT_FREQUENCY as DEFAULT_FREQUENCY_NAME,
  frequencyNameOf,
  RETENTION_OPTIONS as RETENTION_HOURS,
} from '@coffer/contracts';
import type { Frequency } from '../api/generated';

export { DEFAULT_RETENTION };

export interface FrequencyOption {
  value: Frequency;
  label: string;
  hours: number;
}

export const FREQUENCY_OPTIONS: readonly FrequencyOption[] = FREQUENCY_NAMES.map((value) => ({
  value,
  label: value.charAt(0).toUpperCase() + value.slice(1),
  hours: FREQUENCY_HOURS[value],
}));

export const DEFAULT_FREQUENCY: Frequency = DEFAULT_FREQUENCY_NAME;

/** Received frequency hours back to the select: 1, 24, 168, 720, anything else daily. */
export function frequencyFromHours(hours: number | null | undefined): Frequency {
  return frequencyNameOf(hours);
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

export const RETENTION_DAYS = RETENTION_HOURS.map((hours) => hours / 24);

export const RETENTION_OPTIONS: readonly RetentionOption[] = RETENTION_DAYS.map((days) => ({
  days,
  hours: days * 24,
  label: `${days} days`,
}));

/** An option is disabled when the plan keeps backups fewer days (retentionLimit / 24) than it offers. */
export function isRetentionDisabled(option: RetentionOption, retentionLimit: number | undefined): boolean {
  if (retentionLimit === undefined) return false;
  return retentionLimit / 24 < option.days;
}
