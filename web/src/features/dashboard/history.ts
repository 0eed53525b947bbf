// The per-database history chart's data (issue 20, "Seeing the history"): one point per finished
// backup, oldest first, with its size and how long it ran; failures are marked, not measured.
import type { Backup } from '../../api/generated';

/** How many of the latest backups the chart shows: enough for a month of daily backups, readable on a phone. */
export const HISTORY_POINTS = 30;

export interface HistoryPoint {
  id: string;
  /** When it finished (ISO), the x axis. */
  at: string;
  failed: boolean;
  /** Bytes; null for a failure (it stored nothing). */
  size: number | null;
  /** Seconds from the agent's start to the end; null when the backup does not say. */
  duration: number | null;
}

/** Seconds a finished backup ran: from the agent's start (else its creation) to its completion. */
export function durationSeconds(b: Pick<Backup, 'createdAt' | 'startedAt' | 'completedAt'>): number | null {
  if (!b.completedAt) return null;
  const ms = Date.parse(b.completedAt) - Date.parse(b.startedAt ?? b.createdAt);
  return Number.isFinite(ms) && ms >= 0 ? Math.round(ms / 1000) : null;
}

/** The latest finished backups of one database, oldest first; pending and running ones are not history yet. */
export function historyPoints(
  backups: readonly Backup[],
  databaseName: string,
  limit = HISTORY_POINTS,
): HistoryPoint[] {
  return backups
    .filter((b) => b.databaseName === databaseName && (b.status === 'completed' || b.status === 'failed'))
    .map((b) => ({
      id: b._id,
      at: b.timestamp,
      failed: b.status === 'failed',
      size: b.status === 'completed' ? b.size : null,
      duration: durationSeconds(b),
    }))
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || a.id.localeCompare(b.id))
    .slice(-limit);
}

/** "45 s", "3 min", "1.5 h": a duration axis label. */
export function formatSeconds(s: number): string {
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  return `${Number((s / 3600).toFixed(1))} h`;
}
