// How times read in mails (same wording as the web app, product §9). Sizes: formatBytes in @coffer/contracts.

const UTC = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/**
 * A moment as 'May 1, 2025, 10:00 AM UTC'. The service does not know the reader's time zone, so
 * it says which one it uses.
 */
export function formatTime(at: Date): string {
  return Number.isNaN(at.getTime()) ? 'an unknown time' : `${UTC.format(at)} UTC`;
}
