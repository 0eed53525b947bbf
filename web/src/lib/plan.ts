// How plan limits read on screen (product §9, "Plan display").
import { formatBytes } from './format';

export function formatPrice(price: number): string {
  return price === 0 ? 'Free' : `$${price} /month`;
}

export function formatDbLimit(dbLimit: number): string {
  return dbLimit > 500 ? 'Unlimited' : String(dbLimit);
}

export function formatRetention(hours: number): string {
  if (hours > 720) {
    const months = Math.round(hours / 24 / 30.42);
    return `${months} month${months === 1 ? '' : 's'}`;
  }
  const days = Math.round(hours / 24);
  return `${days} day${days === 1 ? '' : 's'}`;
}

export function formatFrequency(hours: number): string {
  if (hours === 1) return 'Hourly';
  if (hours === 24) return 'Daily';
  return 'Weekly';
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
