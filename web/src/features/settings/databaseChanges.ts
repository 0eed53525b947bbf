// What a database toggle changed beyond the database clicked (issue 10). The plan keeps the first
// dbLimit enabled databases active, so disabling an active one lets the next enabled one in: the
// user is told which, instead of finding out from the next backup. Pure, so it is unit-tested.
import type { Database } from '../../api/generated';

const names = (list: string[]) =>
  list.length <= 1 ? (list[0] ?? '') : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;

/**
 * The message after a successful toggle of `toggledId`, comparing the list before and after;
 * null when nothing changed but the database clicked.
 */
export function toggleOutcome(
  before: readonly Database[],
  after: readonly Database[],
  toggledId: string,
): string | null {
  const wasActive = new Set(before.filter((d) => d.isActive).map((d) => d._id));
  const isActive = new Set(after.filter((d) => d.isActive).map((d) => d._id));
  const others = after.filter((d) => d._id !== toggledId);
  const nowActive = others.filter((d) => isActive.has(d._id) && !wasActive.has(d._id)).map((d) => d.name);
  const nowInactive = others.filter((d) => !isActive.has(d._id) && wasActive.has(d._id)).map((d) => d.name);
  const toggled = after.find((d) => d._id === toggledId);
  const parts: string[] = [];
  if (nowActive.length > 0) {
    const verb = nowActive.length === 1 ? 'is' : 'are';
    parts.push(
      `${names(nowActive)} ${verb} now active and will be backed up: your plan keeps the first enabled databases active up to its limit.`,
    );
  }
  if (nowInactive.length > 0) {
    parts.push(`${names(nowInactive)} ${nowInactive.length === 1 ? 'is' : 'are'} no longer active.`);
  }
  if (parts.length === 0) return null;
  const what = toggled ? `${toggled.isActive ? 'Enabled' : 'Disabled'} ${toggled.name}. ` : '';
  return what + parts.join(' ');
}
