import type { Plan } from '../../api/generated';
import { downgradeQuestion } from './downgrade';

const GB = 1024 ** 3;
const plan = (name: string, price: number, over: Partial<Plan> = {}): Plan => ({
  _id: name.toLowerCase(),
  name,
  price,
  popular: false,
  dbLimit: 1,
  retentionLimit: 168,
  storageLimit: GB,
  frequencyLimit: 24,
  features: [],
  ...over,
});
const free = plan('Free', 0);
const pro = plan('Pro', 29, { dbLimit: 10, retentionLimit: 2160, storageLimit: 100 * GB, frequencyLimit: 1 });

describe('the question a Downgrade asks', () => {
  it('with a paid subscription: the plan stays until the paid period ends (the Terms)', () => {
    const q = downgradeQuestion(pro, free, {
      planId: 'pro',
      status: 'active',
      cancelAtPeriodEnd: false,
      currentPeriodEnd: '2026-12-24T15:30:00Z',
    });
    expect(q).toMatch(
      /^Downgrade to Free\? You keep Pro until Dec 24, 2026, \d{1,2}:30 [AP]M, the end of the period you paid for; then Free applies: 1 active database, daily backups at most, backups kept 7 days, 1 GB of storage\. Backups older than 7 days are then deleted\.$/,
    );
  });

  it('without one (a plan an administrator gave): says the change is immediate, and why', () => {
    expect(downgradeQuestion(pro, free, null)).toBe(
      'Downgrade to Free? Your Pro plan is not a paid subscription, so there is no paid period to wait for: ' +
        'Free applies at once: 1 active database, daily backups at most, backups kept 7 days, 1 GB of storage. ' +
        'Backups older than 7 days are then deleted.',
    );
  });
});
