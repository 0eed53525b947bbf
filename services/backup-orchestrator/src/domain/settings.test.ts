import { USER, testWorld } from '../test-world';
import { clampSettingsToPlan } from './settings';

describe('settings', () => {
  it('answers the defaults (daily, 3 days) before the user saves anything', async () => {
    await expect(testWorld().settings.get(USER)).resolves.toEqual({ frequency: 24, retention: 72 });
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
      clampSettingsToPlan({ frequency: 1, retention: 2160 }, { frequencyLimit: 24, retentionLimit: 168 }),
    ).toEqual({ frequency: 24, retention: 168 });
    expect(
      clampSettingsToPlan({ frequency: 168, retention: 72 }, { frequencyLimit: 24, retentionLimit: 168 }),
    ).toEqual({});
  });

  it('saves the clamped schedule once and announces it; a second run changes nothing', async () => {
    const w = testWorld({ plan: { frequencyLimit: 1, retentionLimit: 2160 } });
    await w.settings.update(USER, { frequency: 1, retention: 2160 });
    w.plan.frequencyLimit = 24;
    w.plan.retentionLimit = 168;
    await expect(w.settings.clampToPlan(USER)).resolves.toEqual({ frequency: 24, retention: 168 });
    await expect(w.settings.get(USER)).resolves.toEqual({ frequency: 24, retention: 168 });
    await w.settings.clampToPlan(USER);
    expect(
      w.events
        .of('settings.backup.updated')
        .map((e) => e.data)
        .slice(1),
    ).toEqual([{ userId: USER, frequency: { from: 1, to: 24 }, retention: { from: 2160, to: 168 } }]);
  });
});
