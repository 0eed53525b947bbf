import { USER, testWorld } from '../test-world';
import { clampSettingsToPlan } from './settings';

const DAYS = { retentionMode: 'days', gfs: null } as const;
const LIMITS = { gfsLimits: { hourly: 24, daily: 31, weekly: 12, monthly: 24, yearly: 3 } };

describe('settings', () => {
  it('answers the defaults (daily, 3 days) before the user saves anything', async () => {
    await expect(testWorld().settings.get(USER)).resolves.toEqual({ ...DAYS, frequency: 24, retention: 72 });
  });

  it('refuses a schedule more frequent than the plan allows', async () => {
    const w = testWorld({ plan: { frequencyLimit: 24 } });
    await expect(w.settings.update(USER, { frequency: 1 })).rejects.toMatchObject({
      kind: 'FORBIDDEN',
      code: 'PLAN_FREQUENCY_LIMIT',
      message: 'Your plan allows scheduled backups at most once every 24 hours',
    });
    expect(w.events.published).toEqual([]);
  });

  it('refuses a retention longer than the plan keeps backups', async () => {
    const w = testWorld({ plan: { retentionLimit: 168 } });
    await expect(w.settings.update(USER, { retention: 720 })).rejects.toMatchObject({
      kind: 'FORBIDDEN',
      code: 'PLAN_RETENTION_LIMIT',
      message: 'Your plan keeps backups for at most 7 days',
    });
  });

  it('saves values within the plan and announces only what changed', async () => {
    const w = testWorld({ plan: { frequencyLimit: 1, retentionLimit: 720 } });
    await expect(w.settings.update(USER, { frequency: 24, retention: 720 })).resolves.toEqual({
      ...DAYS,
      frequency: 24,
      retention: 720,
    });
    expect(w.events.of('settings.backup.updated').map((e) => e.data)).toEqual([
      { userId: USER, retention: { from: 72, to: 720 } },
    ]);
    await w.settings.update(USER, { frequency: 1, retention: 720 });
    expect(w.events.of('settings.backup.updated')[1]!.data).toEqual({
      userId: USER,
      frequency: { from: 24, to: 1 },
    });
  });

  it('lets a user whose plan shrank save other fields while the old value stays', async () => {
    const w = testWorld({ plan: { frequencyLimit: 1 } });
    await w.settings.update(USER, { frequency: 1 });
    w.plan.frequencyLimit = 24;
    await expect(w.settings.update(USER, { frequency: 1, retention: 168 })).resolves.toEqual({
      ...DAYS,
      frequency: 1,
      retention: 168,
    });
  });

  it('publishes nothing and asks no plan when nothing changes', async () => {
    const w = testWorld();
    await w.settings.update(USER, { frequency: 24, retention: 72 });
    expect(w.events.published).toEqual([]);
    expect(w.plans.calls).toBe(0);
  });
});

describe('settings after a plan change', () => {
  it('clamps a schedule beyond the new plan to the most frequent allowed and the longest kept', () => {
    expect(
      clampSettingsToPlan(
        { ...DAYS, frequency: 1, retention: 2160 },
        { ...LIMITS, frequencyLimit: 24, retentionLimit: 168 },
      ),
    ).toEqual({ frequency: 24, retention: 168 });
    expect(
      clampSettingsToPlan(
        { ...DAYS, frequency: 168, retention: 72 },
        { ...LIMITS, frequencyLimit: 24, retentionLimit: 168 },
      ),
    ).toEqual({});
  });

  it('saves the clamped schedule once and announces it; a second run changes nothing', async () => {
    const w = testWorld({ plan: { frequencyLimit: 1, retentionLimit: 2160 } });
    await w.settings.update(USER, { frequency: 1, retention: 2160 });
    w.plan.frequencyLimit = 24;
    w.plan.retentionLimit = 168;
    await expect(w.settings.clampToPlan(USER)).resolves.toEqual({ ...DAYS, frequency: 24, retention: 168 });
    await expect(w.settings.get(USER)).resolves.toEqual({ ...DAYS, frequency: 24, retention: 168 });
    await w.settings.clampToPlan(USER);
    expect(
      w.events
        .of('settings.backup.updated')
        .map((e) => e.data)
        .slice(1),
    ).toEqual([{ userId: USER, frequency: { from: 1, to: 24 }, retention: { from: 2160, to: 168 } }]);
  });
});

describe('GFS retention settings', () => {
  const gfs = { hourly: 0, daily: 7, weekly: 4, monthly: 6, yearly: 1 };

  it('saves GFS with its counts and announces the rule change for the audit log', async () => {
    const w = testWorld();
    await expect(w.settings.update(USER, { retentionMode: 'gfs', gfs })).resolves.toEqual({
      frequency: 24,
      retention: 72,
      retentionMode: 'gfs',
      gfs,
    });
    expect(w.events.of('settings.backup.updated').map((e) => e.data)).toEqual([
      {
        userId: USER,
        retentionRule: { from: 'keep 3 days', to: 'GFS 0 hourly, 7 daily, 4 weekly, 6 monthly, 1 yearly' },
      },
    ]);
    // The same again changes nothing and announces nothing.
    await w.settings.update(USER, { retentionMode: 'gfs', gfs: { ...gfs } });
    expect(w.events.of('settings.backup.updated')).toHaveLength(1);
    // Back to days keeps the counts for next time.
    await expect(w.settings.update(USER, { retentionMode: 'days' })).resolves.toMatchObject({
      retentionMode: 'days',
      gfs,
    });
  });

  it('chooses GFS without counts from the suggestion, bounded by the plan', async () => {
    const w = testWorld({ plan: { gfsLimits: { hourly: 0, daily: 7, weekly: 4, monthly: 0, yearly: 0 } } });
    await expect(w.settings.update(USER, { retentionMode: 'gfs' })).resolves.toMatchObject({
      gfs: { hourly: 0, daily: 7, weekly: 4, monthly: 0, yearly: 0 },
    });
  });

  it('refuses counts beyond the plan, naming the period, and saves nothing', async () => {
    const w = testWorld({ plan: { gfsLimits: { hourly: 0, daily: 7, weekly: 4, monthly: 0, yearly: 0 } } });
    await expect(w.settings.update(USER, { retentionMode: 'gfs', gfs })).rejects.toMatchObject({
      kind: 'FORBIDDEN',
      code: 'PLAN_GFS_LIMIT',
      message: 'Your plan keeps at most 0 monthly backups with GFS retention',
    });
    await expect(w.settings.get(USER)).resolves.toMatchObject({ retentionMode: 'days', gfs: null });
  });

  it('clamps saved counts to a smaller plan', async () => {
    const w = testWorld();
    await w.settings.update(USER, { retentionMode: 'gfs', gfs });
    w.plan.gfsLimits = { hourly: 0, daily: 5, weekly: 4, monthly: 0, yearly: 0 };
    await expect(w.settings.clampToPlan(USER)).resolves.toMatchObject({
      retentionMode: 'gfs',
      gfs: { hourly: 0, daily: 5, weekly: 4, monthly: 0, yearly: 0 },
    });
  });
});
