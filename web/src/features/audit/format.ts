// How audit details read: exact, since a log is evidence (no '1.2K' abbreviations).

/** '850 ms', '42 s', '3 min 5 s', '1 h 2 min': a job's run time at the precision a person reads. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}

/** '1,234,567': a count in full, grouped the en-US way like every other number in the app. */
export function formatExactCount(n: number): string {
  return n.toLocaleString('en-US');
}
