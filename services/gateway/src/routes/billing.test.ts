import { planChangeNotes } from './billing';

const GB = 1024 ** 3;
const free = { name: 'Free', dbLimit: 1, frequencyLimit: 24, retentionLimit: 168, storageLimit: 1 * GB };

describe('what a smaller plan changes', () => {
  it('names the databases that become inactive in order, the clamped schedule and storage over the limit', () => {
    expect(
      planChangeNotes(free, {
        databases: [
          { name: 'orders', enabled: true },
          { name: 'old-off', enabled: false },
          { name: 'users', enabled: true },
          { name: 'logs', enabled: true },
        ],
        frequency: 1,
        retention: 720,
        storageUsed: 1.5 * GB,
      }),
    ).toEqual([
      'users, logs are now inactive: the Free plan allows 1 active database. Their backups are kept.',
      'Scheduled backups changed from hourly to daily.',
      'Retention changed from 30 days to 7 days: older backups are removed by the retention rule.',
      "You use 1.5 GB of the plan's 1 GB: new backups are refused until old ones are removed or expire.",
    ]);
  });

  it('names GFS counts a smaller plan lowers', () => {
    const limits = { hourly: 0, daily: 7, weekly: 4, monthly: 0, yearly: 0 };
    const now = { databases: [], frequency: 24, retention: 72, storageUsed: 0 };
    expect(
      planChangeNotes(
        { ...free, gfsLimits: limits },
        { ...now, gfs: { hourly: 0, daily: 14, weekly: 4, monthly: 12, yearly: 1 } },
      ),
    ).toEqual([
      'GFS retention changed to keep 0 hourly, 7 daily, 4 weekly, 0 monthly, 0 yearly: backups it no longer keeps are removed by the retention rule.',
    ]);
    expect(planChangeNotes({ ...free, gfsLimits: limits }, { ...now, gfs: limits })).toEqual([]);
  });

  it('says nothing when everything fits the new plan', () => {
    expect(
      planChangeNotes(free, {
        databases: [{ name: 'orders', enabled: true }],
        frequency: 168,
        retention: 72,
        storageUsed: 0,
      }),
    ).toEqual([]);
  });
});
