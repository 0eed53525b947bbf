// Article dates read 'Jan 5, 2025': when an article changed matters to the day, not the minute.
export function formatArticleDate(value: string): string {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return '';
  return d.toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric' });
}
