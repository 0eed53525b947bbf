// How plan limits read on screen (product §9, "Plan display").
import { formatBytes, formatFrequency } from '@coffer/contracts';
import { capitalize } from './format';

// Retention reads as in the audit log and in mails (contracts/src/format.ts).
export { formatRetention } from '@coffer/contracts';

export function formatPrice(price: number): string {
  return price === 0 ? 'Free' : `$${price} /month`;
}

export function formatDbLimit(dbLimit: number): string {
  return dbLimit > 500 ? 'Unlimited' : String(dbLimit);
}

/** The plan's backup frequency as a label ('Hourly'); `formatFrequency` in a sentence. */
export function frequencyLabel(hours: number): string {
  return capitalize(formatFrequency(hours));
}

export function formatStorage(bytes: number): string {
  return formatBytes(bytes);
}

/** Storage bar colour: green up to 70 %, amber above 70 %, red above 90 %. */
export function storageBarColor(percent: number): string {
  if (percent > 90) return 'red.500';
  if (percent > 70) return 'orange.400';
  return 'green.500';
}

/** Percentage of the limit used; 0 when there is no limit. Not capped (the bar caps its width). */
export function storagePercent(used: number, limit: number): number {
  if (!limit || limit <= 0) return 0;
  return (used / limit) * 100;
}
