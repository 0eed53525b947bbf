// Display formatting shared by every page (product §9). Pure functions, no React.

// Sizes read the same in mails, audit values and the agent's command line: one module in contracts.
export { formatBytes } from '@coffer/contracts';

const MONTHS_SHORT = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function toDate(value: string | number | Date): Date | null {
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** General date: en-US short month, day, year, hour, minute ('Jan 5, 2025, 2:03 PM'). */
export function formatDate(value: string | number | Date): string {
  const d = toDate(value);
  if (!d) return '';
  return d.toLocaleString('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
  });
}

/** Backup and restore dates: 'MMM d, yyyy h:mm a' ('Jan 5, 2025 2:03 PM'). */
export function formatBackupDate(value: string | number | Date): string {
  const d = toDate(value);
  if (!d) return '';
  const h12 = d.getHours() % 12 === 0 ? 12 : d.getHours() % 12;
  const ampm = d.getHours() < 12 ? 'AM' : 'PM';
  return `${MONTHS_SHORT[d.getMonth()]} ${d.getDate()}, ${d.getFullYear()} ${h12}:${pad(d.getMinutes())} ${ampm}`;
}

/** Audit timestamps: 'MMM d, yyyy HH:mm:ss' ('Jan 5, 2025 14:03:09'). */
export function formatAuditTimestamp(value: string | number | Date): string {
  const d = toDate(value);
  if (!d) return '';
  return `${MONTHS_SHORT[d.getMonth()]} ${d.getDate()}, ${d.getFullYear()} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Long localized date ('January 5, 2025' in en-US), or null when the value is not a date. */
export function formatLongDate(value: string | number | Date | null | undefined): string | null {
  if (value === null || value === undefined || value === '') return null;
  const d = toDate(value);
  if (!d) return null;
  return d.toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' });
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/**
 * A duration given in hours, in the largest sensible unit: minutes under 1 hour, hours up to 24,
 * days under 168 hours, weeks under 8760, months under 105120; anything longer falls back to days.
 */
export function formatDurationHours(hours: number): string {
  if (!Number.isFinite(hours) || hours < 0) return '';
  if (hours < 1) return plural(Math.round(hours * 60), 'minute');
  if (hours <= 24) return plural(Math.round(hours), 'hour');
  if (hours < 168) return plural(Math.round(hours / 24), 'day');
  if (hours < 8760) return plural(Math.round(hours / 168), 'week');
  if (hours < 105120) return plural(Math.round(hours / 720), 'month');
  return plural(Math.round(hours / 24), 'day');
}

/** Counts abbreviated with K from 1,000 and M from 1,000,000 ('1.2K', '3.4M'). */
export function formatCount(n: number): string {
  if (n >= 1_000_000) return `${parseFloat((n / 1_000_000).toFixed(1))}M`;
  if (n >= 1_000) return `${parseFloat((n / 1_000).toFixed(1))}K`;
  return String(n);
}

/** Percentage with one decimal ('42.5%'). */
export function formatPercent(value: number): string {
  return `${(Number.isFinite(value) ? value : 0).toFixed(1)}%`;
}

/** First letter upper-cased, hyphens to spaces: 'in-progress' → 'In progress'. */
export function capitalize(value: string): string {
  const s = value.replace(/-/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** 'getting-started' → 'Getting Started'. */
export function titleCase(value: string): string {
  return value
    .split('-')
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}
