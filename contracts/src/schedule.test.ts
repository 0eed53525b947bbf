import {
  DEFAULT_RETENTION,
  FREQUENCY_HOURS,
  FREQUENCY_NAMES,
  FREQUENCY_OPTIONS,
  frequencyNameOf,
  isFrequencyHours,
  isRetentionHours,
  RETENTION_OPTIONS,
} from './schedule.js';

describe('schedule values', () => {
  it('frequencies: hourly, daily, weekly, monthly are 1, 24, 168, 720 hours', () => {
    expect(FREQUENCY_NAMES.map((n) => FREQUENCY_HOURS[n])).toEqual([...FREQUENCY_OPTIONS]);
    expect(FREQUENCY_OPTIONS).toEqual([1, 24, 168, 720]);
  });

  it('stored hours read back as names; anything else reads as daily', () => {
    expect(frequencyNameOf(168)).toBe('weekly');
    expect(frequencyNameOf(720)).toBe('monthly');
    expect(frequencyNameOf(12)).toBe('daily');
    expect(frequencyNameOf(undefined)).toBe('daily');
  });

  it('retention: 3 to 180 days, 3 days by default', () => {
    expect(RETENTION_OPTIONS.map((h) => h / 24)).toEqual([3, 7, 14, 30, 90, 180]);
    expect(DEFAULT_RETENTION).toBe(72);
    expect(isRetentionHours(336)).toBe(true);
    expect(isRetentionHours(48)).toBe(false);
    expect(isFrequencyHours(24)).toBe(true);
    expect(isFrequencyHours(2)).toBe(false);
  });
});
