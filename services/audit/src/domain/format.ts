// How numbers read in audit values. Same wording as the web app's display helpers (product §9), so a
// value in the log reads like the same setting on screen.

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** Backup frequency in hours: 'hourly', 'daily', 'weekly' for the plan values, else '6 h'. */
export function formatFrequency(hours: number): string {
  if (hours === 1) return 'hourly';
  if (hours === 24) return 'daily';
  if (hours === 168) return 'weekly';
  return `${hours} h`;
}

/** Retention in hours: whole days ('7 days'), months past 30 days ('3 months'), else hours ('12 h'). */
export function formatRetention(hours: number): string {
  if (hours % 24 !== 0) return `${hours} h`;
  if (hours > 720) return plural(Math.round(hours / 24 / 30.42), 'month');
  return plural(hours / 24, 'day');
}
