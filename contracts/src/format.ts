// How sizes and plan settings read wherever a person sees them: the web app, mails, audit values,
// the gateway's answers and the agent's command line (product §9). One module, so a size or a
// setting reads the same on screen, in a mail and in the log.

const BYTE_UNITS = ['Bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/** Human size from bytes: '0 Bytes', '1.5 KB', … up to TB, `decimals` places (trailing zeros dropped). */
export function formatBytes(bytes: number, decimals = 2): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 Bytes';
  const i = Math.min(BYTE_UNITS.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  return `${parseFloat((bytes / 1024 ** i).toFixed(Math.max(0, decimals)))} ${BYTE_UNITS[i]}`;
}

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
