// How numbers and times read in mails (same wording as the web app, spec §9).

const BYTE_UNITS = ['Bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/** Human size from bytes: '0 Bytes', '1.5 KB', … up to TB, two decimals at most. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 Bytes';
  const i = Math.min(BYTE_UNITS.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  return `${parseFloat((bytes / 1024 ** i).toFixed(2))} ${BYTE_UNITS[i]}`;
}

const UTC = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/**
 * A moment as 'May 1, 2025, 10:00 AM UTC'. The service does not know the reader's time zone, so
 * it says which one it uses.
 */
export function formatTime(at: Date): string {
  return Number.isNaN(at.getTime()) ? 'an unknown time' : `${UTC.format(at)} UTC`;
}
