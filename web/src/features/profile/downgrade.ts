// What a Downgrade asks before it is sent (issue 21, walk 8). The Terms say a subscription ends
// "at the end of the current paid term": with a paid subscription the server schedules the change
// for the end of the period (auth's billing domain); a plan given by an administrator has no paid
// term, so the change is immediate. The question says which, and what the smaller plan takes away.
import type { Plan, Subscription } from '../../api/generated';
import { formatBytes, formatDate } from '../../lib/format';
import { formatFrequency, formatRetention } from '@coffer/contracts';
import { formatDbLimit } from '../../lib/plan';

const LIVE = new Set(['active', 'trialing', 'past_due']);

/** The new plan's limits, in the words of the plan cards. */
function limitsOf(plan: Plan): string {
  const dbs = formatDbLimit(plan.dbLimit);
  return (
    `${dbs} active database${dbs === '1' ? '' : 's'}, ` +
    `${formatFrequency(plan.frequencyLimit)} backups at most, ` +
    `backups kept ${formatRetention(plan.retentionLimit)}, ${formatBytes(plan.storageLimit)} of storage`
  );
}

export function downgradeQuestion(current: Plan, target: Plan, subscription?: Subscription | null): string {
  const lost =
    target.retentionLimit < current.retentionLimit
      ? ` Backups older than ${formatRetention(target.retentionLimit)} are then deleted.`
      : '';
  const end = subscription?.currentPeriodEnd;
  if (subscription && LIVE.has(subscription.status) && end) {
    return (
      `Downgrade to ${target.name}? You keep ${current.name} until ${formatDate(end)}, the end of the ` +
      `period you paid for; then ${target.name} applies: ${limitsOf(target)}.${lost}`
    );
  }
  return (
    `Downgrade to ${target.name}? Your ${current.name} plan is not a paid subscription, so there is no ` +
    `paid period to wait for: ${target.name} applies at once: ${limitsOf(target)}.${lost}`
  );
}
